import GatehouseProtocol

/// Text to show between fields; nothing to enter.
public struct LabelCollector: Sendable {
    public let field: FlowField
    public var text: String { field.label }
}
