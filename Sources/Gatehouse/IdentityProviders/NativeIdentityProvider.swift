import Crypto
import Foundation

/// An identity provider's own sign-in on the device, which hands the app an ID token: the Sign in with Apple sheet
/// (`AppleIDSignIn` on Apple platforms), Google's SDK, or any other wrapped in a
/// ``ClosureNativeIdentityProvider``. The flow checks the token (``ContinueNode/next(signingInWith:native:)``).
public protocol NativeIdentityProvider: Sendable {
    /// Signs the person in with the provider, putting `nonce` (the flow's, single use) in the request, and returns
    /// the ID token. Apple's sheet is given ``NativeIdentityCredential/hashedNonce(_:)``; a provider that takes the
    /// nonce as it is may pass it so. Throws `CancellationError` when the person closed it, and any other error when
    /// it failed: the flow tells the two apart.
    func signIn(nonce: String) async throws -> NativeIdentityCredential
}

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
        SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// A ``NativeIdentityProvider`` that hands the nonce to a closure of the app's, such as one around Google's SDK
/// (`GIDSignIn.sharedInstance.signIn(withPresenting:hint:additionalScopes:nonce:)`, whose result's `idToken` it returns).
public struct ClosureNativeIdentityProvider: NativeIdentityProvider {
    private let run: @Sendable (String) async throws -> NativeIdentityCredential

    /// A provider that calls `signIn` with the flow's nonce.
    public init(_ signIn: @escaping @Sendable (_ nonce: String) async throws -> NativeIdentityCredential) {
        run = signIn
    }

    public func signIn(nonce: String) async throws -> NativeIdentityCredential {
        try await run(nonce)
    }
}
