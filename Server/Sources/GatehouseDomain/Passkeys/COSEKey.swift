import CBOR
import Crypto
import CryptoExtras
import Foundation

/// A credential's public key as the authenticator sends it: a COSE_Key (RFC 9052, RFC 9053) for one of the
/// algorithms Gatehouse accepts. The encoded bytes are what is stored, so a key reads the same on every node.
package struct COSEKey: Sendable {
    /// The signature algorithms a passkey may use, by their COSE identifiers.
    package enum Algorithm: Int, Sendable, CaseIterable, Codable {
        /// ECDSA with P-256 and SHA-256.
        case es256 = -7
        /// EdDSA with Ed25519.
        case edDSA = -8
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = -257
    }

    private enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    package let algorithm: Algorithm
    /// The COSE_Key as it was encoded.
    package let encoded: [UInt8]
    private let key: Key

    /// Reads an encoded COSE_Key.
    package init(encoded: [UInt8]) throws(WebAuthnError) {
        let item: CBOR
        do { item = try CBORDecoder().decode(encoded) } catch { throw .invalidCBOR(error) }
        try self.init(item, encoded: encoded)
    }

    /// Reads a COSE_Key already decoded from `encoded`.
    package init(_ item: CBOR, encoded: [UInt8]) throws(WebAuthnError) {
        guard let map = item.map else { throw .unsupportedKey("it is not a COSE key map") }
        guard let number = map[int: 3]?.int, let algorithm = Algorithm(rawValue: number) else {
            throw .unsupportedKey("algorithm \(map[int: 3]?.int.map(String.init) ?? "missing"); ES256 (-7), EdDSA (-8) and RS256 (-257) are")
        }
        let type = map[int: 1]?.int
        func bytes(_ label: Int, count: Int? = nil) throws(WebAuthnError) -> [UInt8] {
            guard let value = map[int: label]?.bytes, count.map({ value.count == $0 }) ?? !value.isEmpty else {
                throw .unsupportedKey("parameter \(label) is missing or has the wrong length")
            }
            return value
        }
        do {
            switch algorithm {
            case .es256:
                guard type == 2, map[int: -1]?.int == 1 else { throw WebAuthnError.unsupportedKey("ES256 needs an EC2 key on P-256") }
                key = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + (try bytes(-2, count: 32)) + (try bytes(-3, count: 32))))
            case .edDSA:
                guard type == 1, map[int: -1]?.int == 6 else { throw WebAuthnError.unsupportedKey("EdDSA needs an OKP key on Ed25519") }
                key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: try bytes(-2, count: 32)))
            case .rs256:
                guard type == 3 else { throw WebAuthnError.unsupportedKey("RS256 needs an RSA key") }
                key = .rsa(try _RSA.Signing.PublicKey(n: try bytes(-1), e: try bytes(-2)))
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw .unsupportedKey("the key is not a valid \(algorithm) public key")
        }
        self.algorithm = algorithm
        self.encoded = encoded
    }

    /// Whether `signature` is this key's over `data`: DER ECDSA for ES256, raw for EdDSA, PKCS#1 v1.5 for RS256.
    package func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}
