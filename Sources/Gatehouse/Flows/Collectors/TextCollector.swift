import GatehouseProtocol

/// A line of text, such as a username or a name.
public struct TextCollector: FieldCollector {
    public let field: FlowField
    public let messages: [FlowMessage]
    public var value: String

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
        value = field.defaultValue ?? ""
    }

    public var fieldValue: FieldValue { .text(value) }
}
