import GatehouseProtocol

/// A link to another flow, such as "Forgot password?"; follow it with ``ContinueNode/next(following:)``.
public struct FlowLinkCollector: Sendable {
    /// The node's link action, as the server sent it.
    public let action: FlowAction
    /// The action's id.
    public var id: String { action.id }
    /// The link's text, such as "Forgot your password?".
    public var label: String { action.label }
    /// The flow the link leads to.
    public var flow: String? { action.flow }
}
