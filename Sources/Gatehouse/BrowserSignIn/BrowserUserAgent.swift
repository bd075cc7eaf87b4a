import Foundation
import GatehouseProtocol

/// Shows a page of the provider's in a browser and brings back the URL the provider sent the browser to.
///
/// The SDK ships ``LoopbackUserAgent`` (the system browser and a listener on 127.0.0.1, for macOS and Linux apps and
/// command-line tools, RFC 8252 §7.3) and, on Apple platforms, `WebAuthenticationSessionBrowser`
/// (ASWebAuthenticationSession, RFC 8252 §7.1 with the app's scheme). Anything else that can show a page — an embedded
/// view, a test's stand-in — conforms to this protocol.
public protocol BrowserUserAgent: Sendable {
    /// Shows `page` and returns where the provider sent the browser back to.
    ///
    /// Throw `CancellationError` when the person closed the browser (the sign-in ends with
    /// ``GatehouseError/cancelled``); any other error ends it with ``GatehouseError/userAgent(_:)``.
    func present(_ page: BrowserPage) async throws -> BrowserRedirect
}

/// A page of the provider's to show in a browser: its authorization endpoint for a sign-in, its end-session endpoint
/// for a sign-out, with the request's parameters. The user agent completes it with the redirect URI it hears back on.
public struct BrowserPage: Sendable {
    /// What the page is for.
    public enum Purpose: Sendable, Equatable {
        /// The provider's sign-in (the authorization endpoint).
        case signIn
        /// The provider's sign-out (the end-session endpoint).
        case signOut
    }

    /// What the page is for; a loopback listener words its closing page by it.
    public let purpose: Purpose
    /// The redirect URI the app registered (from its configuration). A user agent that hears back elsewhere, such as a
    /// loopback listener on a port the system gave it, passes its own to ``url(redirectURI:)``.
    public let registeredRedirectURI: String
    /// The languages the app's user reads (the configuration's), for the page a user agent shows when it is done.
    public let preferredLanguages: [String]
    let endpoint: URL
    let parameters: [(name: String, value: String)]
    let redirectParameter: String
    /// Pushes the parameters to the provider ahead (RFC 9126) and returns the `request_uri` that stands for them.
    let push: (@Sendable (_ parameters: [(name: String, value: String)]) async throws(GatehouseError) -> String)?

    init(
        purpose: Purpose, endpoint: URL, parameters: [(name: String, value: String)], registeredRedirectURI: String,
        preferredLanguages: [String] = [], push: (@Sendable ([(name: String, value: String)]) async throws(GatehouseError) -> String)? = nil
    ) {
        self.purpose = purpose
        self.preferredLanguages = preferredLanguages
        self.endpoint = endpoint
        self.parameters = parameters
        self.registeredRedirectURI = registeredRedirectURI
        self.push = push
        redirectParameter = purpose == .signIn ? "redirect_uri" : "post_logout_redirect_uri"
    }

    /// The page's URL, asking the provider to send the browser back to `redirectURI`. When the request is pushed
    /// (RFC 9126), its parameters go to the provider first and the URL carries only `client_id` and `request_uri`.
    ///
    /// - Throws: ``GatehouseError`` when the provider refuses the pushed request.
    public func url(redirectURI: String) async throws(GatehouseError) -> URL {
        let all = parameters + [(redirectParameter, redirectURI)]
        guard let push else { return Self.url(endpoint, adding: all) }
        let reference = try await push(all)
        let clientID = parameters.first { $0.name == "client_id" }?.value ?? ""
        return Self.url(endpoint, adding: [("client_id", clientID), ("request_uri", reference)])
    }

    private static func url(_ endpoint: URL, adding parameters: [(name: String, value: String)]) -> URL {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        let query = FormEncoding.encode(parameters.map { ($0.name, $0.value) })
        components.percentEncodedQuery = [components.percentEncodedQuery, query].compactMap { $0 }.joined(separator: "&")
        return components.url ?? endpoint
    }

    /// The scheme of the registered redirect URI: what ASWebAuthenticationSession waits for.
    public var callbackScheme: String? { URLComponents(string: registeredRedirectURI)?.scheme }
}

/// Where the browser came back to: the URL with the provider's answer, and the redirect URI the page was shown with
/// (the token request must name the same one).
public struct BrowserRedirect: Sendable, Equatable {
    /// The URL the provider sent the browser to, with its answer in the query.
    public var url: URL
    /// The redirect URI given to ``BrowserPage/url(redirectURI:)``.
    public var redirectURI: String

    /// A redirect to `url`, for a page shown with `redirectURI`.
    public init(url: URL, redirectURI: String) {
        self.url = url
        self.redirectURI = redirectURI
    }
}
