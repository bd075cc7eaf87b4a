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
