import GatehouseProtocol

/// A secret: show it as a secure field. It starts empty even when the node is shown again.
public struct PasswordCollector: FieldCollector {
    public let field: FlowField
    public let messages: [FlowMessage]
    public var value: String = ""

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
    }

    public var fieldValue: FieldValue { .text(value) }
}
