import Foundation

/// Opens another identity provider's sign-in page and returns the URL the browser came back to. On Apple platforms
/// use `WebAuthenticationSessionBrowser` (ASWebAuthenticationSession); elsewhere ``ClosureIdentityProviderBrowser``
/// with whatever the app has (the system browser and a loopback listener, an embedded view).
public protocol IdentityProviderBrowser: Sendable {
    /// Shows `url` and returns the URL the sign-in ended at: one with the scheme `callbackScheme` (the app's redirect
    /// URI's), which carries `code` and `state` or `error`. Throws `CancellationError` when the person closed the
    /// browser, and any other error when it could not be shown or failed: the flow tells the two apart.
    func authorize(_ url: URL, callbackScheme: String) async throws -> URL
}

/// An ``IdentityProviderBrowser`` that hands the URL to a closure of the app's.
public struct ClosureIdentityProviderBrowser: IdentityProviderBrowser {
    private let open: @Sendable (URL, String) async throws -> URL

    /// A browser that calls `open` with the URL to show and the callback scheme to wait for.
    public init(_ open: @escaping @Sendable (_ url: URL, _ callbackScheme: String) async throws -> URL) {
        self.open = open
    }

    public func authorize(_ url: URL, callbackScheme: String) async throws -> URL {
        try await open(url, callbackScheme)
    }
}
