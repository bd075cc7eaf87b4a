import GatehouseProtocol

/// A link to another flow, such as "Forgot password?"; follow it with ``ContinueNode/next(following:)``.
public struct FlowLinkCollector: Sendable {
    public let action: FlowAction
    public var id: String { action.id }
    public var label: String { action.label }
    /// The flow the link leads to.
    public var flow: String? { action.flow }
}
