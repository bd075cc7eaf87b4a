import GatehouseProtocol

/// A button that submits the node; pass it to ``ContinueNode/next(_:)``.
public struct SubmitCollector: Sendable {
    public let action: FlowAction
    public var id: String { action.id }
    public var label: String { action.label }
}
