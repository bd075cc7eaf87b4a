import Foundation

/// The checks a node's fields define, run by the SDK before submitting and by the server after:
/// one implementation, so both always agree.
extension FlowField {
    /// Why `value` is not acceptable for this field, in English, or `nil` when it is.
    public func problem(with value: FieldValue?) -> String? {
        fieldProblem(with: value).map { problem in
            switch problem {
            case .required: "\(label) is required."
            case .invalid: validation?.message ?? "\(label) is not valid."
            case .chooseOne: "Choose one of the options for \(label)."
            case .chooseFromOptions: "Choose from the options for \(label)."
            case .controlCharacters: "\(label) cannot contain line breaks or other control characters."
            }
        }
    }

    /// Which rule `value` breaks, or `nil` when it breaks none: for wording the problem in a language of one's own.
    public func fieldProblem(with value: FieldValue?) -> FieldProblem? {
        guard !isDisplayOnly else { return nil }
        let value = value ?? .text("")
        if value.isEmpty {
            return required ? .required : nil
        }
        switch kind {
        case .singleChoice:
            guard case .text(let choice) = value, isOption(choice) else { return .chooseOne }
            return nil
        case .multipleChoice:
            guard value.list.allSatisfy(isOption), Set(value.list).count == value.list.count else { return .chooseFromOptions }
            return nil
        default:
            guard case .text(let text) = value else { return .invalid }
            // Typed text never holds a line break, an escape or another control character: a name with one could
            // forge lines in logs and tables. Passwords are secrets never shown; passkey answers are JSON.
            if ![.password, .passkeyCreate, .passkeyGet].contains(kind), text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return .controlCharacters
            }
            let rules = validation ?? FieldValidation()
            let broken =
                (rules.minLength.map { text.count < $0 } ?? false)
                || (rules.maxLength.map { text.count > $0 } ?? false)
                || (rules.regex.map { text.range(of: "^(?:\($0))$", options: .regularExpression) == nil } ?? false)
            // The pattern admits the characters of a number; whether the digits make one is PhoneNumber's to say.
            return broken || (kind == .phoneNumber && PhoneNumber(text) == nil) ? .invalid : nil
        }
    }

    private func isOption(_ value: String) -> Bool {
        options?.contains { $0.value == value } ?? false
    }
}

/// The rule of a field a value breaks.
public enum FieldProblem: String, Sendable, CaseIterable {
    /// The field needs a value and has none.
    case required
    /// The value breaks the field's validation (its ``FieldValidation/message`` says how).
    case invalid
    /// A single choice names no option.
    case chooseOne = "choose_one"
    /// A multiple choice names something that is not an option, or one twice.
    case chooseFromOptions = "choose_from_options"
    /// Typed text holds a line break or another control character.
    case controlCharacters = "control_characters"
}

extension FlowNode {
    /// A message for every field whose value breaks a rule; empty when the node may be submitted.
    public func problems(in values: [String: FieldValue]) -> [FlowMessage] {
        fields.compactMap { field in
            field.problem(with: values[field.key]).map { FlowMessage(level: .error, text: $0, field: field.key, code: "invalid_value") }
        }
    }
}
