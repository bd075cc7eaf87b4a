import GatehouseProtocol

// The flow's wire types made from catalog messages: each text goes out with its key beside it.

extension FlowNode {
    /// A node of a known `category`, titled and described by catalog messages.
    package init(
        id: String, name: Phrase, description: Phrase, category: FlowCategory, fields: [FlowField], actions: [FlowAction], messages: [FlowMessage] = [],
        consent: FlowConsent? = nil, codeSource: CodeSource? = nil
    ) {
        self.init(
            id: id, name: name.text, description: description.text, category: category, fields: fields, actions: actions, messages: messages,
            consent: consent, codeSource: codeSource)
        nameID = name.id
        descriptionID = description.id
    }
}

extension FlowField {
    /// A field labelled by a catalog message.
    package init(
        key: String, kind: Kind, label: Phrase, required: Bool = true, validation: FieldValidation? = nil, options: [FieldOption]? = nil,
        defaultValue: String? = nil, autocomplete: String? = nil
    ) {
        self.init(
            key: key, kind: kind, label: label.text, required: required, validation: validation, options: options, defaultValue: defaultValue,
            autocomplete: autocomplete)
        labelID = label.id
    }
}

extension FieldValidation {
    /// Rules whose broken-rule message is a catalog message.
    package init(minLength: Int? = nil, maxLength: Int? = nil, regex: String? = nil, message: Phrase) {
        self.init(minLength: minLength, maxLength: maxLength, regex: regex, message: message.text)
        messageID = message.id
    }
}

extension FieldOption {
    /// An option named by a catalog message.
    package init(value: String, label: Phrase) {
        self.init(value: value, label: label.text, labelID: label.id)
    }
}

extension FlowAction {
    /// An action of a known id, labelled by a catalog message; `flow` only for links.
    package init(id: FlowActionID, kind: Kind, label: Phrase, flow: String? = nil) {
        self.init(id: id.rawValue, kind: kind, label: label.text, flow: flow)
        labelID = label.id
    }
}

extension FlowMessage {
    /// A catalog message on the node, or on the field `field`, with the values it was given.
    package init(level: Level, text: Phrase, field: String? = nil, code: String? = nil) {
        self.init(level: level, text: text.text, field: field, code: code)
        id = text.id
        context = text.arguments.isEmpty ? nil : text.arguments
    }
}
