import Foundation
import GatehouseProtocol

/// What a browser or OS answers a ceremony with, in WebAuthn's JSON forms (`RegistrationResponseJSON`,
/// `AuthenticationResponseJSON`, as `PublicKeyCredential.toJSON()` makes them). Other members are allowed.
package enum PasskeyResponse {
    /// The largest credential JSON read: an attestation with a certificate chain is a few kilobytes.
    package static let maxLength = 64 * 1024

    package struct Registration: Decodable {
        package struct Response: Decodable {
            package let clientDataJSON: String
            package let attestationObject: String
            package let transports: [String]?
        }
        package let id: String
        package let rawId: String
        package let type: String
        package let response: Response
    }

    package struct Assertion: Decodable {
        package struct Response: Decodable {
            package let clientDataJSON: String
            package let authenticatorData: String
            package let signature: String
            package let userHandle: String?
        }
        package let id: String
        package let rawId: String
        package let type: String
        package let response: Response
    }

    /// Reads `text` as `T`, a credential of type `public-key` whose `id` and `rawId` agree.
    package static func decode<T: Decodable>(_ type: T.Type, from text: String, id: (T) -> (String, String, String)) throws(WebAuthnError) -> T {
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
    package static func bytes(_ text: String, _ name: String) throws(WebAuthnError) -> [UInt8] {
        guard let data = Base64URL.decode(text) else { throw .malformed("\(name) is not base64url") }
        return Array(data)
    }
}
