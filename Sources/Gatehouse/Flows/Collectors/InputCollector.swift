import GatehouseProtocol

/// A collector for a value typed by the user. One implementation serves every kind of input; the kind
/// (``TextCollector``, ``PasswordCollector``, ``PhoneNumberCollector``, ``OneTimeCodeCollector``) tells
/// the app how to render it.
public struct InputCollector<Kind: InputKind>: FieldCollector {
    public let field: FlowField
    public let messages: [FlowMessage]
    /// What the person typed; sent as the field's value.
    public var value: String

    init(field: FlowField, messages: [FlowMessage]) {
        self.field = field
        self.messages = messages
        // A secret is never filled in again, even when the server sends the node back.
        value = field.isSecret ? "" : field.defaultValue ?? ""
    }

    public var fieldValue: FieldValue { .text(value) }
}

/// What kind of input an ``InputCollector`` holds; only its type matters, to tell the app how to render it.
public protocol InputKind: Sendable {}

/// A line of text, such as a username or a name.
public enum TextInput: InputKind {}
/// A password: show it in a secure field.
public enum PasswordInput: InputKind {}
/// A phone number; the server's rules usually ask for the international form, e.g. `+14155550100`.
public enum PhoneNumberInput: InputKind {}
/// A one-time code from email, SMS or an authenticator app; use the platform's one-time-code content type.
public enum OneTimeCodeInput: InputKind {}

/// A text field, such as a username or an email address.
public typealias TextCollector = InputCollector<TextInput>
/// A password field: show it masked, and let password managers fill it (`autocomplete`).
public typealias PasswordCollector = InputCollector<PasswordInput>
/// A phone number field, in international form (`+` and the country code).
public typealias PhoneNumberCollector = InputCollector<PhoneNumberInput>
/// A one-time code field: a code from an authenticator app, an email or a text message.
public typealias OneTimeCodeCollector = InputCollector<OneTimeCodeInput>

extension InputCollector where Kind == PhoneNumberInput {
    /// The number typed, read the way the server reads it (`PhoneNumber`); `nil` while it is not a phone number
    /// with its country code. ``FieldCollector/problem`` says why.
    public var number: PhoneNumber? { PhoneNumber(value) }
}
