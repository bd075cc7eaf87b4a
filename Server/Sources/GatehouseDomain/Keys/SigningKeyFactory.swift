import Crypto
import CryptoExtras
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import JWTKit

/// Creates signing keys and turns stored keys back into jwt-kit keys.
package enum SigningKeyFactory {
    package static let algorithms = ["RS256", "ES256"]

    /// A new key pair for `algorithm`, its public JWK and its private key sealed in `box`.
    package static func generate(algorithm: String, box: SecretBox, now: Int64) throws -> SigningKeyRecord {
        let pem: String
        var jwk: JSONWebKey
        switch algorithm {
        case "RS256":
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            pem = key.pemRepresentation
            let primitives = try Insecure.RSA.PrivateKey(backing: key).publicKey.getKeyPrimitives()
            jwk = JSONWebKey(
                keyType: "RSA", keyID: "", algorithm: "RS256",
                modulus: Base64URL.encode(primitives.modulus), exponent: Base64URL.encode(primitives.publicExponent))
        case "ES256":
            let key = P256.Signing.PrivateKey()
            pem = key.pemRepresentation
            let raw = key.publicKey.x963Representation  // 0x04 ‖ X ‖ Y
            jwk = JSONWebKey(
                keyType: "EC", keyID: "", algorithm: "ES256", curve: "P-256",
                x: Base64URL.encode(raw[1..<33]), y: Base64URL.encode(raw[33..<65]))
        default:
            throw ConfigurationError("Unsupported signing algorithm \(algorithm); use RS256 or ES256.")
        }
        let kid = thumbprint(of: jwk)
        jwk.keyID = kid
        let publicJSON = String(decoding: try JSONEncoder().encode(jwk), as: UTF8.self)
        return SigningKeyRecord(
            kid: kid, algorithm: algorithm, publicJWK: publicJSON,
            sealedPrivateKey: try box.seal(Data(pem.utf8)), createdAt: now
        )
    }

    /// The RFC 7638 JWK thumbprint (SHA-256, base64url): a key id that is derived from the key itself.
    package static func thumbprint(of jwk: JSONWebKey) -> String {
        // Required members only, in lexicographic order, no whitespace (RFC 7638 §3.2).
        let canonical: String
        if jwk.keyType == "RSA" {
            canonical = #"{"e":"\#(jwk.exponent ?? "")","kty":"RSA","n":"\#(jwk.modulus ?? "")"}"#
        } else {
            canonical = #"{"crv":"\#(jwk.curve ?? "")","kty":"EC","x":"\#(jwk.x ?? "")","y":"\#(jwk.y ?? "")"}"#
        }
        return Base64URL.encode(SHA256.hash(data: Data(canonical.utf8)))
    }

    /// Adds a stored key to a jwt-kit collection, which verifies with it: the private key for keys that sign now or will,
    /// the public key for retired ones. For a key that signs, returns what makes its signatures.
    package static func add(_ record: SigningKeyRecord, to collection: JWTKeyCollection, box: SecretBox, now: Int64) async throws -> (any JWTAlgorithm)? {
        let kid = JWKIdentifier(string: record.kid)
        let opened: Data
        do {
            opened = try box.open(record.sealedPrivateKey)
        } catch {
            throw ConfigurationError(
                "The signing key \(record.kid) cannot be decrypted: it was stored with another server secret. Give every server the same secret (GATEHOUSE_SECRET or secret_file)."
            )
        }
        let pem = String(decoding: opened, as: UTF8.self)
        switch record.algorithm {
        case "RS256":
            let key = try Insecure.RSA.PrivateKey(pem: pem)
            guard record.signs(after: now) else {
                await collection.add(rsa: key.publicKey, digestAlgorithm: .sha256, kid: kid)
                return nil
            }
            await collection.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
            return RS256Algorithm(key: try RSASigningKey(pemRepresentation: pem))
        case "ES256":
            let key = try ES256PrivateKey(pem: pem)
            guard record.signs(after: now) else {
                await collection.add(ecdsa: key.publicKey, kid: kid)
                return nil
            }
            await collection.add(ecdsa: key, kid: kid)
            return try await collection.getKey(for: kid)
        default:
            throw ConfigurationError("The database holds a signing key with the unknown algorithm \(record.algorithm).")
        }
    }
}
