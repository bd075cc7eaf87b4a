import GatehouseProtocol

/// A phone number; the server's rules usually ask for the international form, e.g. `+14155550100`.
public struct PhoneNumberCollector: FieldCollector {
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
