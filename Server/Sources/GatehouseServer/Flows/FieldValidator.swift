import Foundation
import GatehouseProtocol

/// Checks submitted values against a node's fields: the same rules the SDK checks on the device.
enum FieldValidator {
    /// Messages for every field whose value breaks a rule; empty when all values are acceptable.
    static func problems(in values: [String: String], for node: FlowNode) -> [FlowMessage] {
        node.fields.compactMap { field -> FlowMessage? in
            guard field.kind != .label else { return nil }
            let value = values[field.key] ?? ""
            if value.isEmpty {
                return field.required ? FlowMessage(level: .error, text: "\(field.label) is required.", field: field.key) : nil
            }
            guard let rules = field.validation else { return nil }
            let broken = (rules.minLength.map { value.count < $0 } ?? false)
                || (rules.maxLength.map { value.count > $0 } ?? false)
                || (rules.regex.map { value.range(of: "^(?:\($0))$", options: .regularExpression) == nil } ?? false)
            return broken ? FlowMessage(level: .error, text: rules.message ?? "\(field.label) is not valid.", field: field.key) : nil
        }
    }
}
