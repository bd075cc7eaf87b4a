import Foundation
import GatehouseProtocol

/// A collector that holds what the user enters for one field of a node.
///
/// Each checks itself with the rules the server sent (``problem``), so an app can show a message before
/// anything is submitted; the server checks again with the same rules.
public protocol FieldCollector: Sendable {
    /// The field as the server described it: key, label, rules, options.
    var field: FlowField { get }
    /// What the server said about this field the last time it was submitted.
    var messages: [FlowMessage] { get }
    /// The value as it will be submitted.
    var fieldValue: FieldValue { get }
}

extension FieldCollector {
    /// The key the value is submitted under.
    public var key: String { field.key }
    /// The field's label, to show next to it.
    public var label: String { field.label }
    /// Whether the node cannot be submitted without a value for this field.
    public var isRequired: Bool { field.required }
    /// Why the current value would be rejected, in the system's languages, or `nil` when it is acceptable.
    public var problem: String? { problem(in: Locale.preferredLanguages) }

    /// Why the current value would be rejected, in the first of `languages` the SDK speaks (else English), or `nil`
    /// when it is acceptable.
    public func problem(in languages: [String]) -> String? { field.localizedProblem(with: fieldValue, in: languages) }
}
