import GatehouseProtocol

/// One element of a ``ContinueNode``, typed so an app can render each kind natively.
///
/// ```swift
/// for collector in node.collectors {
///     switch collector {
///     case .text(let text): TextField(text.label, ...)
///     case .password(let password): SecureField(password.label, ...)
///     case .submit(let submit): Button(submit.label) { ... }
///     default: ...
///     }
/// }
/// ```
public enum Collector: Sendable {
    /// A line of text, such as a username.
    case text(TextCollector)
    /// A secret typed hidden.
    case password(PasswordCollector)
    /// A phone number in E.164 form.
    case phoneNumber(PhoneNumberCollector)
    /// A short code from a message or an authenticator app.
    case oneTimeCode(OneTimeCodeCollector)
    /// One choice among options.
    case singleChoice(SingleChoiceCollector)
    /// Any number of choices among options.
    case multipleChoice(MultipleChoiceCollector)
    /// Text to show.
    case label(LabelCollector)
    /// Content to show as a QR code.
    case qrCode(QRCodeCollector)
    /// A passkey to create or use, through a ``PasskeyProvider``.
    case passkey(PasskeyCollector)
    /// A button that submits the node with its action.
    case submit(SubmitCollector)
    /// A link that starts another flow.
    case flowLink(FlowLinkCollector)
    /// "Sign in with …" another identity provider, through an ``IdentityProviderBrowser``.
    case idp(IdpCollector)

    init(field: FlowField, messages: [FlowMessage]) {
        let own = messages.filter { $0.field == field.key }
        switch field.kind {
        case .text: self = .text(TextCollector(field: field, messages: own))
        case .password: self = .password(PasswordCollector(field: field, messages: own))
        case .phoneNumber: self = .phoneNumber(PhoneNumberCollector(field: field, messages: own))
        case .oneTimeCode: self = .oneTimeCode(OneTimeCodeCollector(field: field, messages: own))
        case .singleChoice: self = .singleChoice(SingleChoiceCollector(field: field, messages: own))
        case .multipleChoice: self = .multipleChoice(MultipleChoiceCollector(field: field, messages: own))
        case .label: self = .label(LabelCollector(field: field))
        case .qrCode: self = .qrCode(QRCodeCollector(field: field))
        case .passkeyCreate, .passkeyGet: self = .passkey(PasskeyCollector(field: field, messages: own))
        // A kind from a newer server: its label and a line of text still let the person answer it.
        case .unknown: self = .text(TextCollector(field: field, messages: own))
        }
    }

    init(action: FlowAction) {
        switch action.kind {
        case .submit: self = .submit(SubmitCollector(action: action))
        case .link: self = .flowLink(FlowLinkCollector(action: action))
        case .idp: self = .idp(IdpCollector(action: action))
        // A kind from a newer server: a button submitting the node with its id, which that server understands.
        case .unknown: self = .submit(SubmitCollector(action: action))
        }
    }

    /// The input collector inside, for the kinds that take a value.
    public var field: (any FieldCollector)? {
        switch self {
        case .text(let collector): collector
        case .password(let collector): collector
        case .phoneNumber(let collector): collector
        case .oneTimeCode(let collector): collector
        case .singleChoice(let collector): collector
        case .multipleChoice(let collector): collector
        case .passkey(let collector): collector
        case .label, .qrCode, .submit, .flowLink, .idp: nil
        }
    }

    /// Sets the value of a text-like collector, or the selection of a choice (comma-separated for several).
    /// Returns `false` for labels and actions, which take no value.
    @discardableResult
    mutating func set(_ value: String) -> Bool {
        switch self {
        case .text(var collector): collector.value = value; self = .text(collector)
        case .password(var collector): collector.value = value; self = .password(collector)
        case .phoneNumber(var collector): collector.value = value; self = .phoneNumber(collector)
        case .oneTimeCode(var collector): collector.value = value; self = .oneTimeCode(collector)
        case .singleChoice(var collector): collector.selection = value; self = .singleChoice(collector)
        case .multipleChoice(var collector):
            collector.selections = value.split(separator: ",").map(String.init)
            self = .multipleChoice(collector)
        case .passkey(var collector): collector.credentialJSON = value; self = .passkey(collector)
        case .label, .qrCode, .submit, .flowLink, .idp: return false
        }
        return true
    }
}
