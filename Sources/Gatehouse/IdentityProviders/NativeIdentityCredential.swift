import Crypto
import Foundation
import GatehouseProtocol

/// What a provider's own sign-in returned.
public struct NativeIdentityCredential: Sendable, Equatable {
    /// The ID token, signed by the provider, whose `nonce` is the flow's (or its ``hashedNonce(_:)``).
    public var idToken: String
    /// The person's name, for providers that give it to the app and not in the token (Apple, at the first sign-in
    /// only); used where the token has none.
    public var name: String?

    /// A credential with `idToken` and, when the provider gave one outside it, `name`.
    public init(idToken: String, name: String? = nil) {
        self.idToken = idToken
        self.name = name
    }

    /// The nonce as Apple's sheet takes it: SHA-256 of `nonce`, in lowercase hex; the token then carries this value,
    /// which the server checks against the flow's nonce.
    public static func hashedNonce(_ nonce: String) -> String {
        Hex.encode(SHA256.hash(data: Data(nonce.utf8)))
    }
}
