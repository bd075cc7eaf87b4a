#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// The system's browser session on Apple platforms (ASWebAuthenticationSession): shares cookies with Safari unless
/// ``prefersEphemeralSession``, and ends when the provider sends the browser to the app's callback scheme. Only the
/// call into the system lives here; what is done with the returned URL is ``ContinueNode``'s, tested on every platform.
@available(iOS 13.0, macOS 10.15, *)
@MainActor
public final class WebAuthenticationSessionBrowser: NSObject, IdentityProviderBrowser, ASWebAuthenticationPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    /// The session showing, kept until the next one: the system does not keep it alive for us.
    private var session: ASWebAuthenticationSession?
    /// Whether the session keeps no cookies (no "signed in already" at the provider, no prompt about sharing them).
    public var prefersEphemeralSession = false

    /// A browser presented from `anchor` (the app's window).
    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    public nonisolated func authorize(_ url: URL, callbackScheme: String) async throws -> URL {
        try await start(url, callbackScheme: callbackScheme)
    }

    /// Shows the session; the person closing it is a `CancellationError`, anything else the system's error.
    private func start(_ url: URL, callbackScheme: String) async throws -> URL {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
            let session = ASWebAuthenticationSession(url: url, callbackURLScheme: callbackScheme) { callback, error in
                if let callback {
                    continuation.resume(returning: callback)
                } else if let error, (error as? ASWebAuthenticationSessionError)?.code != .canceledLogin {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(throwing: CancellationError())
                }
            }
            session.presentationContextProvider = self
            session.prefersEphemeralWebBrowserSession = prefersEphemeralSession
            self.session = session
            if !session.start() { continuation.resume(throwing: ASWebAuthenticationSessionError(.presentationContextInvalid)) }
        }
    }

    public nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }
}

/// The same system browser session for ``GatehouseClient/signInWithBrowser(using:options:)`` and
/// ``UserSession/logout(using:)``: the page is shown with the app's registered redirect URI, whose scheme ends it.
@available(iOS 13.0, macOS 10.15, *)
extension WebAuthenticationSessionBrowser: BrowserUserAgent {
    public nonisolated func present(_ page: BrowserPage) async throws -> BrowserRedirect {
        guard let scheme = page.callbackScheme else { throw ASWebAuthenticationSessionError(.presentationContextInvalid) }
        let url = try await start(try await page.url(redirectURI: page.registeredRedirectURI), callbackScheme: scheme)
        return BrowserRedirect(url: url, redirectURI: page.registeredRedirectURI)
    }
}
#endif
