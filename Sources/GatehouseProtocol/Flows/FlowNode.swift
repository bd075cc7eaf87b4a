/// One step of a flow: what the user sees and fills in. Apps render it natively; the hosted pages render
/// the same node as an HTML form.
public struct FlowNode: Codable, Sendable, Equatable {
    /// Stable identifier of this step, e.g. `login.password`; apps may switch on it.
    public var id: String
    /// The step's title, e.g. "Enter your password", in the language the request chose.
    public var name: String
    /// A sentence under the title saying what the step is for.
    public var description: String
    /// The stable key of ``name``'s message in the server's catalogs (e.g. `flow.password.name`), for an app that
    /// shows its own wording; absent from servers before localization.
    public var nameID: String?
    /// The stable key of ``description``'s message.
    public var descriptionID: String?
    /// Which kind of screen this is, e.g. `sign_in`.
    public var category: String
    /// What the user fills in or reads, in order.
    public var fields: [FlowField]
    /// What the user can do: the first submit action submits the fields.
    public var actions: [FlowAction]
    /// What to tell the user about the last submission (a wrong password, a code that was sent).
    public var messages: [FlowMessage]
    /// On a consent node: the application asking and what it asks for.
    public var consent: FlowConsent?
    /// On a node that asks for a code: which factor it belongs to and how it came (an app, a text message, a call,
    /// an email, the saved recovery codes). On a node that asks for the phone number or email address being set up:
    /// how its code will come.
    public var codeSource: CodeSource?

    /// A node; `messages` are empty unless the step is shown again after a submission.
    public init(
        id: String, name: String, description: String, category: String, fields: [FlowField], actions: [FlowAction], messages: [FlowMessage] = [],
        consent: FlowConsent? = nil, codeSource: CodeSource? = nil
    ) {
        self.id = id
        self.name = name
        self.description = description
        self.category = category
        self.fields = fields
        self.actions = actions
        self.messages = messages
        self.consent = consent
        self.codeSource = codeSource
    }

    /// A node of a known `category`.
    public init(
        id: String, name: String, description: String, category: FlowCategory, fields: [FlowField], actions: [FlowAction], messages: [FlowMessage] = [],
        consent: FlowConsent? = nil, codeSource: CodeSource? = nil
    ) {
        self.init(
            id: id, name: name, description: description, category: category.rawValue, fields: fields, actions: actions, messages: messages,
            consent: consent, codeSource: codeSource)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, description, category, fields, actions, messages, consent
        case codeSource = "code_source"
        case nameID = "name_id"
        case descriptionID = "description_id"
    }

    /// The node's category, when it is one this version knows.
    public var knownCategory: FlowCategory? { FlowCategory(rawValue: category) }

    /// The node's step, when it is one this version knows.
    public var step: FlowStep? { FlowStep(rawValue: id) }

    /// The node's action with the id `id`, if it offers one.
    public func action(_ id: FlowActionID) -> FlowAction? { actions.first { $0.id == id.rawValue } }

    /// The first submit action: it submits the node's values, which are checked first. Other submit actions
    /// (resend a code, use another method, skip) go on without checking the fields.
    public var primaryAction: FlowAction? { actions.first { $0.kind == .submit } }
}

/// Something the user fills in (or reads, for `label` and `qr_code`).
public struct FlowField: Codable, Sendable, Equatable {
    /// How the field is entered or shown; the wire name is `type`.
    public enum Kind: ExtensibleWireValue {
        /// A line of text.
        case text
        /// A secret typed hidden.
        case password
        /// Text to read, taking no value.
        case label
        /// Content to show as a QR code (its `default_value`, e.g. an `otpauth://` URI), captioned by `label`.
        case qrCode
        /// One of ``FlowField/options``.
        case singleChoice
        /// Any of ``FlowField/options``, submitted as a list.
        case multipleChoice
        /// A phone number in E.164 form, such as `+14155550100`.
        case phoneNumber
        /// A short code from a message or an authenticator app: entered hidden, offered by one-time-code autofill.
        case oneTimeCode
        /// A passkey to create (a WebAuthn registration): `default_value` is the `PublicKeyCredentialCreationOptionsJSON`
        /// text to pass to the platform; the value to submit is the new credential's JSON (`toJSON()`), as text.
        case passkeyCreate
        /// A passkey to use (a WebAuthn authentication): `default_value` is the `PublicKeyCredentialRequestOptionsJSON`
        /// text; the value to submit is the assertion's JSON (`toJSON()`), as text.
        case passkeyGet
        /// A kind from a newer server, with its wire name: shown by its label and filled in as text.
        case unknown(String)

        public static let known: [Kind] = [
            .text, .password, .label, .qrCode, .singleChoice, .multipleChoice, .phoneNumber, .oneTimeCode, .passkeyCreate, .passkeyGet,
        ]

        /// The wire name.
        public var rawValue: String {
            switch self {
            case .text: "text"
            case .password: "password"
            case .label: "label"
            case .qrCode: "qr_code"
            case .singleChoice: "single_choice"
            case .multipleChoice: "multiple_choice"
            case .phoneNumber: "phone_number"
            case .oneTimeCode: "one_time_code"
            case .passkeyCreate: "passkey_create"
            case .passkeyGet: "passkey_get"
            case .unknown(let name): name
            }
        }
    }

    /// The key the value is submitted under.
    public var key: String
    /// How the field is entered or shown.
    public var kind: Kind
    /// What the field is called on screen.
    public var label: String
    /// The stable key of ``label``'s message in the server's catalogs.
    public var labelID: String?
    /// Whether the primary action needs a value.
    public var required: Bool
    /// Rules the value must follow, checked by the SDK before submitting and by the server again.
    public var validation: FieldValidation?
    /// The choices of a single or multiple choice field.
    public var options: [FieldOption]?
    /// A value to start with (the username typed earlier, the default choice, a QR code's content).
    public var defaultValue: String?
    /// The HTML `autocomplete` hint, so password managers and one-time-code autofill work.
    public var autocomplete: String?

    /// A field, required unless `required` says otherwise.
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
        case labelID = "label_id"
    }
}

/// Rules a field's value must follow; the client checks them before submitting, the server again after.
public struct FieldValidation: Codable, Sendable, Equatable {
    /// The fewest characters the value may have.
    public var minLength: Int?
    /// The most characters the value may have.
    public var maxLength: Int?
    /// A regular expression the whole value must match.
    public var regex: String?
    /// What to tell the user when the value breaks a rule.
    public var message: String?
    /// The stable key of ``message``'s message in the server's catalogs.
    public var messageID: String?

    /// Rules; each one left out does not apply.
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
        case messageID = "message_id"
    }
}

/// One choice of a single or multiple choice field.
public struct FieldOption: Codable, Sendable, Equatable {
    /// What is submitted when the option is chosen.
    public var value: String
    /// What the option is called on screen.
    public var label: String
    /// The stable key of ``label``'s message in the server's catalogs.
    public var labelID: String?

    /// An option submitted as `value`, shown as `label`.
    public init(value: String, label: String, labelID: String? = nil) {
        self.value = value
        self.label = label
        self.labelID = labelID
    }

    enum CodingKeys: String, CodingKey {
        case value, label
        case labelID = "label_id"
    }
}

/// What the user can do on a node: submit it, or switch to another flow ("Forgot password?").
public struct FlowAction: Codable, Sendable, Equatable {
    /// Whether the action submits the node or starts another flow; the wire name is `type`.
    public enum Kind: ExtensibleWireValue {
        /// Submits the node with this action's id.
        case submit
        /// Starts the flow named by ``FlowAction/flow``.
        case link
        /// Signs in with another identity provider: open ``FlowAction/url`` in a browser; the provider sends the
        /// browser back to Gatehouse, which sends it on to the app's redirect URI with `code` and `state` (or `error`).
        /// Submit those query parameters with the action `idp_callback` to go on.
        case idp
        /// A kind from a newer server, with its wire name: offered as a button that submits the node with its id.
        case unknown(String)

        public static let known: [Kind] = [.submit, .link, .idp]

        /// The wire name.
        public var rawValue: String {
            switch self {
            case .submit: "submit"
            case .link: "link"
            case .idp: "idp"
            case .unknown(let name): name
            }
        }
    }

    /// What the submission names as its `action`.
    public var id: String
    /// Whether the action submits the node or starts another flow.
    public var kind: Kind
    /// The button's or link's text.
    public var label: String
    /// The stable key of ``label``'s message in the server's catalogs (absent for another identity provider's button,
    /// which is named by its configuration).
    public var labelID: String?
    /// For links: the flow they start.
    public var flow: String?
    /// For identity providers: the page to open in a browser.
    public var url: String?
    /// For identity providers: the provider's icon, when one is configured.
    public var icon: String?
    /// For identity providers whose ID tokens the app may obtain itself (`native: true` on the server): the nonce to
    /// pass to the provider's own sign-in (its SHA-256 in hex for Apple's), single use; then submit the token with
    /// ``FlowActionID/identityProviderToken``.
    public var nonce: String?
    /// For identity providers with a ``nonce``: the action that submits the ID token the app obtained
    /// (``FlowActionID/identityProviderToken``), so that a renderer working from the node alone finds it.
    public var tokenAction: String?

    /// An action; `flow` only for links, `url`, `icon` and `nonce` only for identity providers (whose `nonce` comes
    /// with ``tokenAction``).
    public init(id: String, kind: Kind, label: String, flow: String? = nil, url: String? = nil, icon: String? = nil, nonce: String? = nil) {
        self.id = id
        self.kind = kind
        self.label = label
        self.flow = flow
        self.url = url
        self.icon = icon
        self.nonce = nonce
        tokenAction = nonce == nil ? nil : FlowActionID.identityProviderToken.rawValue
    }

    /// An action of a known id; `flow` only for links.
    public init(id: FlowActionID, kind: Kind, label: String, flow: String? = nil) {
        self.init(id: id.rawValue, kind: kind, label: label, flow: flow)
    }

    /// The action's id, when it is one this version knows (sign-in with another identity provider is not: its id
    /// names the provider).
    public var knownID: FlowActionID? { FlowActionID(rawValue: id) }

    enum CodingKeys: String, CodingKey {
        case id, label, flow, url, icon, nonce
        case kind = "type"
        case labelID = "label_id"
        case tokenAction = "token_action"
    }
}

/// A message on a node, or on one of its fields when `field` is set.
public struct FlowMessage: Codable, Sendable, Equatable {
    /// How to show the message.
    public enum Level: String, Codable, Sendable {
        /// Something to fix before going on.
        case error
        /// Something to know, such as where a code was sent.
        case info
    }

    /// How to show the message.
    public var level: Level
    /// The message, ready to show.
    public var text: String
    /// The key of the field the message is about, if it is about one.
    public var field: String?
    /// A stable, machine-readable reason, e.g. `invalid_credentials`, `throttled`, `locked`, `invalid_value`.
    public var code: String?
    /// The stable key of the message in the server's catalogs (e.g. `flow.error.invalid_credentials`), for an app that
    /// shows its own wording.
    public var id: String?
    /// The values the message's text was given (a masked phone number, a count of seconds), by the names its
    /// catalog entry uses.
    public var context: [String: String]?

    /// A message on the node, or on the field `field`.
    public init(level: Level, text: String, field: String? = nil, code: String? = nil) {
        self.level = level
        self.text = text
        self.field = field
        self.code = code
    }
}
