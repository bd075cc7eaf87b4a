import CBOR
import Crypto
import CryptoExtras
import Foundation
import X509

/// What a registration's attestation proved about the authenticator (WebAuthn §6.5).
package enum AttestationResult: Sendable, Equatable {
    /// No attestation (`none`): nothing is claimed about the authenticator's model.
    case none
    /// Self attestation (`packed` without certificates): the credential signed its own creation.
    case selfAttestation
    /// A certificate chain (`packed` with `x5c`) vouches for the authenticator. Gatehouse keeps no trust anchors,
    /// so the chain is checked for form and signature only: the attestation's trust is uncertain.
    case certificate(chainLength: Int)

    /// Whether a certificate vouches for the authenticator's model (what `require_attestation` asks for).
    package var isCertified: Bool {
        if case .certificate = self { true } else { false }
    }

    /// The value stored with the credential.
    package var name: String {
        switch self {
        case .none: "none"
        case .selfAttestation: "self"
        case .certificate: "basic"
        }
    }
}

/// Verifies an attestation statement over the authenticator data and the client data hash, for the formats
/// Gatehouse supports: `none` and `packed` (self and `x5c`).
package enum AttestationStatement {
    /// FIDO's extension that names the authenticator model in an attestation certificate.
    private static let aaguidExtension = "1.3.6.1.4.1.45724.1.1.4"

    package static func verify(
        format: String, statement: CBORMap, authenticatorData: AuthenticatorData, clientDataHash: [UInt8]
    ) throws(WebAuthnError) -> AttestationResult {
        guard let credential = authenticatorData.attestedCredential else { throw .missingCredential }
        switch format {
        case "none":
            guard statement.count == 0 else { throw .invalidAttestation("a none statement must be empty") }
            return .none
        case "packed":
            guard let algorithm = statement[text: "alg"]?.int, let signature = statement[text: "sig"]?.bytes else {
                throw .invalidAttestation("a packed statement needs alg and sig")
            }
            let signed = authenticatorData.raw + clientDataHash
            guard let chain = statement[text: "x5c"] else {
                guard algorithm == credential.publicKey.algorithm.rawValue else {
                    throw .invalidAttestation("the statement's algorithm is not the credential's")
                }
                guard credential.publicKey.isValidSignature(signature, for: signed) else {
                    throw .invalidAttestation("the self-attestation signature is wrong")
                }
                return .selfAttestation
            }
            guard let certificates = chain.array?.compactMap(\.bytes), !certificates.isEmpty, certificates.count == chain.array?.count else {
                throw .invalidAttestation("x5c must be a list of certificates")
            }
            try verifyPacked(certificates, algorithm: algorithm, signature: signature, signed: signed, aaguid: credential.aaguid)
            return .certificate(chainLength: certificates.count)
        default:
            throw .unsupportedAttestation(format)
        }
    }

    /// §8.2.1: the leaf certificate's key signed the statement; the leaf is a version 3 certificate for
    /// "Authenticator Attestation", not a CA, and names the same authenticator model when it names one.
    private static func verifyPacked(
        _ certificates: [[UInt8]], algorithm: Int, signature: [UInt8], signed: [UInt8], aaguid: [UInt8]
    ) throws(WebAuthnError) {
        let leaf: Certificate
        do { leaf = try Certificate(derEncoded: certificates[0]) } catch { throw .invalidAttestation("the attestation certificate is not X.509") }
        guard leaf.version == .v3 else { throw .invalidAttestation("the attestation certificate is not version 3") }
        let unit = leaf.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.organizationalUnitName }
        guard let unit, String(unit.value) == "Authenticator Attestation" else {
            throw .invalidAttestation("the attestation certificate's OU is not Authenticator Attestation")
        }
        if let constraints = try? leaf.extensions.basicConstraints, case .isCertificateAuthority = constraints {
            throw .invalidAttestation("the attestation certificate is a CA")
        }
        if let named = leaf.extensions.first(where: { $0.oid.description == aaguidExtension }) {
            // The extension's value is an OCTET STRING (tag 4, length 16) holding the AAGUID.
            guard Array(named.value) == [0x04, 0x10] + aaguid else {
                throw .invalidAttestation("the attestation certificate is for another authenticator model")
            }
        }
        let valid: Bool
        switch COSEKey.Algorithm(rawValue: algorithm) {
        case .es256:
            guard let key = P256.Signing.PublicKey(leaf.publicKey), let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature) else {
                throw .invalidAttestation("the attestation certificate's key does not match alg \(algorithm)")
            }
            valid = key.isValidSignature(ecdsa, for: signed)
        case .edDSA:
            guard let key = Curve25519.Signing.PublicKey(leaf.publicKey) else {
                throw .invalidAttestation("the attestation certificate's key does not match alg \(algorithm)")
            }
            valid = key.isValidSignature(signature, for: signed)
        case .rs256:
            guard let key = _RSA.Signing.PublicKey(leaf.publicKey) else {
                throw .invalidAttestation("the attestation certificate's key does not match alg \(algorithm)")
            }
            valid = key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        case nil:
            throw .invalidAttestation("alg \(algorithm) is not supported")
        }
        guard valid else { throw .invalidAttestation("the packed signature is wrong") }
    }
}
