import GatehouseProtocol

/// A button that submits the node; pass it to ``ContinueNode/next(_:)``.
public struct SubmitCollector: Sendable {
    /// The node's submit action, as the server sent it.
    public let action: FlowAction
    /// The action's id, sent back when this button is pressed.
    public var id: String { action.id }
    /// The button's text, such as "Sign in".
    public var label: String { action.label }
}
