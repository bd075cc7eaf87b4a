import Foundation

/// What the browser or OS says about a ceremony (WebAuthn §5.8.1, `clientDataJSON`): the ceremony, the challenge it
/// answers and the page it ran on. Its SHA-256 is part of what the authenticator signs.
package struct CollectedClientData: Sendable, Decodable {
    /// `webauthn.create` or `webauthn.get`.
    package let type: String
    /// The challenge, base64url.
    package let challenge: String
    /// The origin of the page, e.g. `https://id.example.com`.
    package let origin: String
    /// Whether the ceremony ran in a frame of another origin.
    package let crossOrigin: Bool?
    /// The origin of the top page, when the ceremony ran in a frame.
    package let topOrigin: String?

    /// Reads `clientDataJSON`; other members are allowed, as the spec asks (it may grow).
    package init(json bytes: [UInt8]) throws(WebAuthnError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw .malformed("clientDataJSON is not the client data JSON")
        }
    }
}
