/// One step of a flow: what the user sees and fills in. Apps render it natively; the hosted pages render
/// the same node as an HTML form.
public struct FlowNode: Codable, Sendable, Equatable {
    /// Stable identifier of this step, e.g. `login.password`; apps may switch on it.
    public var id: String
    public var name: String
    public var description: String
    /// Which kind of screen this is, e.g. `sign_in`.
    public var category: String
    public var fields: [FlowField]
    public var actions: [FlowAction]
    public var messages: [FlowMessage]

    public init(id: String, name: String, description: String, category: String, fields: [FlowField], actions: [FlowAction], messages: [FlowMessage] = []) {
        self.id = id
        self.name = name
        self.description = description
        self.category = category
        self.fields = fields
        self.actions = actions
        self.messages = messages
    }

    /// The first submit action: it submits the node's values, which are checked first. Other submit actions
    /// (resend a code, use another method, skip) go on without checking the fields.
    public var primaryAction: FlowAction? { actions.first { $0.kind == .submit } }
}

/// Something the user fills in (or reads, for `label` and `qr_code`).
public struct FlowField: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case text, password, label
        /// Content to show as a QR code (its `default_value`, e.g. an `otpauth://` URI), captioned by `label`.
        case qrCode = "qr_code"
        case singleChoice = "single_choice"
        case multipleChoice = "multiple_choice"
        case phoneNumber = "phone_number"
        case oneTimeCode = "one_time_code"
    }

    public var key: String
    public var kind: Kind
    public var label: String
    public var required: Bool
    public var validation: FieldValidation?
    public var options: [FieldOption]?
    public var defaultValue: String?
    /// The HTML `autocomplete` hint, so password managers and one-time-code autofill work.
    public var autocomplete: String?

    public init(
        key: String, kind: Kind, label: String, required: Bool = true, validation: FieldValidation? = nil,
        options: [FieldOption]? = nil, defaultValue: String? = nil, autocomplete: String? = nil
    ) {
        self.key = key
        self.kind = kind
        self.label = label
        self.required = required
        self.validation = validation
        self.options = options
        self.defaultValue = defaultValue
        self.autocomplete = autocomplete
    }

    /// Whether the value is a secret (a password or a one-time code): entered hidden, never pre-filled or sent back.
    public var isSecret: Bool { kind == .password || kind == .oneTimeCode }

    /// Whether the field is only shown (a label or a QR code) and takes no value.
    public var isDisplayOnly: Bool { kind == .label || kind == .qrCode }

    enum CodingKeys: String, CodingKey {
        case key, label, required, validation, options, autocomplete
        case kind = "type"
        case defaultValue = "default_value"
    }
}

/// Rules a field's value must follow; the client checks them before submitting, the server again after.
public struct FieldValidation: Codable, Sendable, Equatable {
    public var minLength: Int?
    public var maxLength: Int?
    /// A regular expression the whole value must match.
    public var regex: String?
    /// What to tell the user when the value breaks a rule.
    public var message: String?

    public init(minLength: Int? = nil, maxLength: Int? = nil, regex: String? = nil, message: String? = nil) {
        self.minLength = minLength
        self.maxLength = maxLength
        self.regex = regex
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case regex, message
        case minLength = "min_length"
        case maxLength = "max_length"
    }
}

/// One choice of a single or multiple choice field.
public struct FieldOption: Codable, Sendable, Equatable {
    public var value: String
    public var label: String

    public init(value: String, label: String) {
        self.value = value
        self.label = label
    }
}

/// What the user can do on a node: submit it, or switch to another flow ("Forgot password?").
public struct FlowAction: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case submit, link }

    public var id: String
    public var kind: Kind
    public var label: String
    /// For links: the flow they start.
    public var flow: String?

    public init(id: String, kind: Kind, label: String, flow: String? = nil) {
        self.id = id
        self.kind = kind
        self.label = label
        self.flow = flow
    }

    enum CodingKeys: String, CodingKey {
        case id, label, flow
        case kind = "type"
    }
}

/// A message on a node, or on one of its fields when `field` is set.
public struct FlowMessage: Codable, Sendable, Equatable {
    public enum Level: String, Codable, Sendable { case error, info }

    public var level: Level
    public var text: String
    public var field: String?
    /// A stable, machine-readable reason, e.g. `invalid_credentials`, `throttled`, `locked`, `invalid_value`.
    public var code: String?

    public init(level: Level, text: String, field: String? = nil, code: String? = nil) {
        self.level = level
        self.text = text
        self.field = field
        self.code = code
    }
}
