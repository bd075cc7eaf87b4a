import Foundation
import GatehouseProtocol

/// The options a WebAuthn ceremony starts from, in WebAuthn's JSON forms (`PublicKeyCredentialCreationOptionsJSON`,
/// `PublicKeyCredentialRequestOptionsJSON`): binary values in base64url, so a browser's `parse…FromJSON` or an OS
/// API takes them unchanged.
package enum PasskeyOptions {
    /// A credential the authenticator should use, or should not make again.
    package struct Descriptor: Codable, Sendable, Equatable {
        package var type = "public-key"
        package let id: String
        package let transports: [String]?
    }

    package struct Creation: Encodable {
        package struct Party: Encodable {
            package let id: String
            package let name: String
        }
        package struct User: Encodable {
            package let id: String
            package let name: String
            package let displayName: String
        }
        package struct Parameter: Encodable {
            package var type = "public-key"
            package let alg: Int
        }
        package struct Selection: Encodable {
            package let residentKey: String
            package let requireResidentKey: Bool
            package let userVerification: String
        }
        package let rp: Party
        package let user: User
        package let challenge: String
        package let pubKeyCredParams: [Parameter]
        package let timeout: Int
        package let excludeCredentials: [Descriptor]
        package let authenticatorSelection: Selection
        package let attestation: String
    }

    package struct Request: Encodable {
        package let challenge: String
        package let timeout: Int
        package let rpId: String
        package let allowCredentials: [Descriptor]
        package let userVerification: String
    }

    /// The descriptor of a stored passkey.
    package static func descriptor(_ passkey: Passkey) -> Descriptor {
        Descriptor(id: Base64URL.encode(passkey.credentialID), transports: passkey.transports.isEmpty ? nil : passkey.transports)
    }

    /// Options to create a passkey for a user, leaving out the ones they have.
    package static func creation(
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
    package static func request(policy: WebAuthnPolicy, party: RelyingParty, challenge: String, allowed: [Passkey]) -> String {
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
