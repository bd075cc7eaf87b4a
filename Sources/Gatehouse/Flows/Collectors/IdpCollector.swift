import Foundation
import GatehouseProtocol

/// "Sign in with …" another identity provider (Google, GitHub, a company's provider). Pass it to
/// ``ContinueNode/next(signingInWith:browser:)``, which opens ``url`` in a browser session and goes on with the flow
/// when the browser comes back.
public struct IdpCollector: Sendable {
    /// The node's action, as the server sent it.
    public let action: FlowAction
    /// The action's id (`idp:` and the provider's id).
    public var id: String { action.id }
    /// The provider's id in the server's configuration, such as `github`.
    public var providerID: String {
        let prefix = FlowActionID.identityProviderPrefix
        return id.hasPrefix(prefix) ? String(id.dropFirst(prefix.count)) : id
    }
    /// The button's text, such as "Sign in with GitHub".
    public var label: String { action.label }
    /// The page to open in a browser.
    public var url: URL? { action.url.flatMap(URL.init(string:)) }
    /// The provider's icon, when the server has one configured.
    public var iconURL: URL? { action.icon.flatMap(URL.init(string:)) }
    /// Whether the server takes an ID token the app obtains from this provider itself (its native sign-in):
    /// ``ContinueNode/next(signingInWith:native:)``.
    public var takesAppTokens: Bool { action.nonce != nil }

    /// Opens ``url`` with `browser` and returns the URL the browser came back to, one with the scheme of the app's
    /// redirect URI (`callbackScheme`) carrying the provider's answer. ``ContinueNode/next(signingInWith:browser:)``
    /// calls this and hands the answer to the flow; call it yourself only to drive the flow by hand.
    public func authorize(with browser: any IdentityProviderBrowser, callbackScheme: String) async throws -> URL {
        guard let url else { throw GatehouseError.unexpectedResponse(status: 200) }
        return try await browser.authorize(url, callbackScheme: callbackScheme)
    }

    /// The query parameters of the return that the server reads.
    static let callbackParameters = ["code", "state", "error", "error_description", "iss"]
}
