#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// The native Sign in with Apple sheet (AuthenticationServices) as a ``NativeIdentityProvider``: asks for the name and
/// email, gives Apple the flow's hashed nonce, and returns the identity token and the name Apple shares once. Only
/// the call into the system lives here; what the flow does with the token is ``ContinueNode``'s, tested on every platform.
@available(iOS 13.0, macOS 10.15, *)
@MainActor
public final class AppleIDSignIn: NSObject, NativeIdentityProvider, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding
{
    private let anchor: ASPresentationAnchor
    /// The request showing, kept until it answers: the system does not keep it alive for us.
    private var controller: ASAuthorizationController?
    private var waiting: CheckedContinuation<NativeIdentityCredential, any Error>?

    /// A sheet presented from `anchor` (the app's window).
    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    public nonisolated func signIn(nonce: String) async throws -> NativeIdentityCredential {
        try await present(nonce: nonce)
    }

    private func present(nonce: String) async throws -> NativeIdentityCredential {
        try await withCheckedThrowingContinuation { continuation in
            let request = ASAuthorizationAppleIDProvider().createRequest()
            request.requestedScopes = [.fullName, .email]
            request.nonce = NativeIdentityCredential.hashedNonce(nonce)
            let controller = ASAuthorizationController(authorizationRequests: [request])
            controller.delegate = self
            controller.presentationContextProvider = self
            // A sheet asked for again before the first answered: the first one is given up, never left waiting.
            waiting?.resume(throwing: CancellationError())
            waiting = continuation
            self.controller = controller
            controller.performRequests()
        }
    }

    private func finish(_ result: Result<NativeIdentityCredential, any Error>) {
        waiting?.resume(with: result)
        waiting = nil
        controller = nil
    }

    public nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        let credential = authorization.credential as? ASAuthorizationAppleIDCredential
        let token = credential?.identityToken.flatMap { String(data: $0, encoding: .utf8) }
        let name = credential?.fullName.map { PersonNameComponentsFormatter().string(from: $0) }
        MainActor.assumeIsolated {
            guard let token else { return finish(.failure(ASAuthorizationError(.invalidResponse))) }
            finish(.success(NativeIdentityCredential(idToken: token, name: name?.isEmpty == false ? name : nil)))
        }
    }

    public nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        // The person closing the sheet is a cancellation, not a failure.
        let cancelled = (error as? ASAuthorizationError)?.code == .canceled
        MainActor.assumeIsolated { finish(.failure(cancelled ? CancellationError() : error)) }
    }

    public nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }
}

extension MultifactorLogin {
    /// Signs in with the native Sign in with Apple sheet, presented from `anchor`, where the server takes Apple's
    /// tokens from apps (`native: true` on its provider `providerID`): ``signIn(withProvider:native:)`` with
    /// ``AppleIDSignIn``.
    @available(iOS 13.0, macOS 10.15, *)
    @MainActor
    public func signInWithApple(anchor: ASPresentationAnchor, providerID: String = "apple") async throws -> UserSession {
        try await signIn(withProvider: providerID, native: AppleIDSignIn(anchor: anchor))
    }
}
#endif
