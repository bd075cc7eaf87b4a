import Foundation

/// The checks a node's fields define, run by the SDK before submitting and by the server after:
/// one implementation, so both always agree.
extension FlowField {
    /// Why `value` is not acceptable for this field, or `nil` when it is.
    public func problem(with value: FieldValue?) -> String? {
        guard !isDisplayOnly else { return nil }
        let value = value ?? .text("")
        if value.isEmpty {
            return required ? "\(label) is required." : nil
        }
        let message = validation?.message ?? "\(label) is not valid."
        switch kind {
        case .singleChoice:
            guard case .text(let choice) = value, isOption(choice) else { return "Choose one of the options for \(label)." }
            return nil
        case .multipleChoice:
            guard value.list.allSatisfy(isOption), Set(value.list).count == value.list.count else { return "Choose from the options for \(label)." }
            return nil
        default:
            guard case .text(let text) = value else { return message }
            // Typed text never holds a line break, an escape or another control character: a name with one could
            // forge lines in logs and tables. Passwords are secrets never shown; passkey answers are JSON.
            if ![.password, .passkeyCreate, .passkeyGet].contains(kind), text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return "\(label) cannot contain line breaks or other control characters."
            }
            let rules = validation ?? FieldValidation()
            let broken =
                (rules.minLength.map { text.count < $0 } ?? false)
                || (rules.maxLength.map { text.count > $0 } ?? false)
                || (rules.regex.map { text.range(of: "^(?:\($0))$", options: .regularExpression) == nil } ?? false)
            // The pattern admits the characters of a number; whether the digits make one is PhoneNumber's to say.
            return broken || (kind == .phoneNumber && PhoneNumber(text) == nil) ? message : nil
        }
    }

    private func isOption(_ value: String) -> Bool {
        options?.contains { $0.value == value } ?? false
    }
}

extension FlowNode {
    /// A message for every field whose value breaks a rule; empty when the node may be submitted.
    public func problems(in values: [String: FieldValue]) -> [FlowMessage] {
        fields.compactMap { field in
            field.problem(with: values[field.key]).map { FlowMessage(level: .error, text: $0, field: field.key, code: "invalid_value") }
        }
    }
}
