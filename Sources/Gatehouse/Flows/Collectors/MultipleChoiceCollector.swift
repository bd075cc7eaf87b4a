import GatehouseProtocol

/// Any number of ``options``.
public struct MultipleChoiceCollector: FieldCollector {
    public let field: FlowField
    public let messages: [FlowMessage]
    /// The chosen options' values.
    public var selections: [String]

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
        selections = (field.defaultValue ?? "").split(separator: ",").map(String.init)
    }

    /// The choices, in the server's order.
    public var options: [FieldOption] { field.options ?? [] }
    public var fieldValue: FieldValue { .list(selections) }
}
