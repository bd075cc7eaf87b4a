import Foundation
import GatehouseProtocol

/// The options a WebAuthn ceremony starts from, in WebAuthn's JSON forms (`PublicKeyCredentialCreationOptionsJSON`,
/// `PublicKeyCredentialRequestOptionsJSON`): binary values in base64url, so a browser's `parse…FromJSON` or an OS
/// API takes them unchanged.
enum PasskeyOptions {
    /// A credential the authenticator should use, or should not make again.
    struct Descriptor: Codable, Sendable, Equatable {
        var type = "public-key"
        let id: String
        let transports: [String]?
    }

    struct Creation: Encodable {
        struct Party: Encodable {
            let id: String
            let name: String
        }
        struct User: Encodable {
            let id: String
            let name: String
            let displayName: String
        }
        struct Parameter: Encodable {
            var type = "public-key"
            let alg: Int
        }
        struct Selection: Encodable {
            let residentKey: String
            let requireResidentKey: Bool
            let userVerification: String
        }
        let rp: Party
        let user: User
        let challenge: String
        let pubKeyCredParams: [Parameter]
        let timeout: Int
        let excludeCredentials: [Descriptor]
        let authenticatorSelection: Selection
        let attestation: String
    }

    struct Request: Encodable {
        let challenge: String
        let timeout: Int
        let rpId: String
        let allowCredentials: [Descriptor]
        let userVerification: String
    }

    /// The descriptor of a stored passkey.
    static func descriptor(_ passkey: Passkey) -> Descriptor {
        Descriptor(id: Base64URL.encode(passkey.credentialID), transports: passkey.transports.isEmpty ? nil : passkey.transports)
    }

    /// Options to create a passkey for a user, leaving out the ones they have.
    static func creation(
        policy: WebAuthnPolicy, party: RelyingParty, serviceName: String, userHandle: [UInt8], username: String, displayName: String,
        challenge: String, existing: [Passkey]
    ) -> String {
        // EdDSA first: the smallest keys and signatures; ES256 is what most authenticators make; RS256 for Windows Hello.
        let algorithms: [COSEKey.Algorithm] = [.edDSA, .es256, .rs256]
        return json(
            Creation(
                rp: .init(id: party.id, name: policy.rpName ?? serviceName),
                user: .init(id: Base64URL.encode(userHandle), name: username, displayName: displayName), challenge: challenge,
                pubKeyCredParams: algorithms.map { .init(alg: $0.rawValue) }, timeout: policy.timeout * 1000,
                excludeCredentials: existing.map(descriptor),
                authenticatorSelection: .init(
                    residentKey: policy.residentKey.rawValue, requireResidentKey: policy.residentKey == .required,
                    userVerification: policy.userVerification.rawValue),
                attestation: policy.attestation.rawValue))
    }

    /// Options to sign in with one of `allowed` (empty: any discoverable passkey for the relying party).
    static func request(policy: WebAuthnPolicy, party: RelyingParty, challenge: String, allowed: [Passkey]) -> String {
        json(
            Request(
                challenge: challenge, timeout: policy.timeout * 1000, rpId: party.id, allowCredentials: allowed.map(descriptor),
                userVerification: policy.userVerification.rawValue))
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The option types hold only strings, numbers and arrays of them: encoding cannot fail.
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
