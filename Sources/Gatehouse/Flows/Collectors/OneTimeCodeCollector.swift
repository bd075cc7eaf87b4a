import GatehouseProtocol

/// A one-time code sent by email or SMS or shown by an authenticator app; use the platform's
/// one-time-code content type so it can be filled in automatically.
public struct OneTimeCodeCollector: FieldCollector {
    public let field: FlowField
    public let messages: [FlowMessage]
    public var value: String = ""

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
    }

    public var fieldValue: FieldValue { .text(value) }
}
