import Foundation
import GatehouseProtocol

extension FlowField {
    /// Why `value` would be refused, in the first of `languages` (BCP 47 tags, most preferred first) the SDK speaks,
    /// else English; `nil` when the value is acceptable.
    ///
    /// A value the field's own rule refuses gets the server's message for it, which is already in the language the
    /// server chose for the flow; the other problems are worded by the SDK's String Catalog.
    public func localizedProblem(with value: FieldValue?, in languages: [String]) -> String? {
        guard let problem = fieldProblem(with: value) else { return nil }
        func say(_ key: String, _ arguments: String...) -> String { StringCatalog.text(key, arguments, languages: languages) }
        return switch problem {
        case .required: say("field.required", label)
        case .invalid: validation?.message ?? say("field.invalid", label)
        case .chooseOne: say("field.choose_one", label)
        case .chooseFromOptions: say("field.choose_from_options", label)
        case .controlCharacters: say("field.control_characters", label)
        }
    }
}
