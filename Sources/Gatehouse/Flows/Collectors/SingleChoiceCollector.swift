import GatehouseProtocol

/// One choice among ``options``, such as which factor to use.
public struct SingleChoiceCollector: FieldCollector {
    public let field: FlowField
    public let messages: [FlowMessage]
    /// The chosen option's value.
    public var selection: String?

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
        selection = field.defaultValue
    }

    /// The choices, in the server's order.
    public var options: [FieldOption] { field.options ?? [] }
    public var fieldValue: FieldValue { .text(selection ?? "") }
}
