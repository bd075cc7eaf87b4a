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
    public var providerID: String { id.hasPrefix(Self.prefix) ? String(id.dropFirst(Self.prefix.count)) : id }
    /// The button's text, such as "Sign in with GitHub".
    public var label: String { action.label }
    /// The page to open in a browser.
    public var url: URL? { action.url.flatMap(URL.init(string:)) }
    /// The provider's icon, when the server has one configured.
    public var iconURL: URL? { action.icon.flatMap(URL.init(string:)) }

    static let prefix = "idp:"
    /// The action that hands the browser's return to the flow.
    static let callbackAction = "idp_callback"
    /// The query parameters of the return that the server reads.
    static let callbackParameters = ["code", "state", "error", "error_description", "iss"]
}
