import GatehouseProtocol

/// Text to show between fields; nothing to enter.
public struct LabelCollector: Sendable {
    /// The label field, as the server sent it.
    public let field: FlowField
    /// The text to show.
    public var text: String { field.label }
}
