import Foundation
import GatehouseProtocol

/// What a browser or OS answers a ceremony with, in WebAuthn's JSON forms (`RegistrationResponseJSON`,
/// `AuthenticationResponseJSON`, as `PublicKeyCredential.toJSON()` makes them). Other members are allowed.
enum PasskeyResponse {
    /// The largest credential JSON read: an attestation with a certificate chain is a few kilobytes.
    static let maxLength = 64 * 1024

    struct Registration: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let attestationObject: String
            let transports: [String]?
        }
        let id: String
        let rawId: String
        let type: String
        let response: Response
    }

    struct Assertion: Decodable {
        struct Response: Decodable {
            let clientDataJSON: String
            let authenticatorData: String
            let signature: String
            let userHandle: String?
        }
        let id: String
        let rawId: String
        let type: String
        let response: Response
    }

    /// Reads `text` as `T`, a credential of type `public-key` whose `id` and `rawId` agree.
    static func decode<T: Decodable>(_ type: T.Type, from text: String, id: (T) -> (String, String, String)) throws(WebAuthnError) -> T {
        guard !text.isEmpty else { throw .malformed("no credential was sent") }
        guard text.utf8.count <= maxLength else { throw .malformed("the credential JSON is larger than \(maxLength) bytes") }
        let value: T
        do { value = try JSONDecoder().decode(T.self, from: Data(text.utf8)) } catch { throw .malformed("it is not the credential JSON WebAuthn defines") }
        let (credentialType, identifier, raw) = id(value)
        guard credentialType == "public-key" else { throw .malformed("the credential type is \(credentialType), not public-key") }
        guard identifier == raw else { throw .malformed("id and rawId differ") }
        return value
    }

    /// The bytes of a base64url member.
    static func bytes(_ text: String, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let data = Base64URL.decode(text) else { throw .malformed("\(name) is not base64url") }
        return Array(data)
    }
}
