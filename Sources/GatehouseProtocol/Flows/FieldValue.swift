/// What the user entered for one field: text, or the chosen values of a multiple choice field.
///
/// Encodes as a JSON string or an array of strings, so `{"username": "alice"}` is a valid submission.
public enum FieldValue: Codable, Sendable, Equatable, Hashable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    /// Text, for every kind of field but multiple choice.
    case text(String)
    /// The chosen values of a multiple choice field.
    case list([String])

    /// Text written as a string literal: `["username": "alice"]`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// Chosen values written as an array literal.
    public init(arrayLiteral elements: String...) { self = .list(elements) }

    /// The text, or the chosen values joined by commas.
    public var text: String {
        switch self {
        case .text(let text): text
        case .list(let values): values.joined(separator: ",")
        }
    }

    /// The chosen values; a text value is a list of one (none when empty).
    public var list: [String] {
        switch self {
        case .text(let text): text.isEmpty ? [] : [text]
        case .list(let values): values
        }
    }

    /// Whether nothing was entered or chosen.
    public var isEmpty: Bool { list.isEmpty }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .list(try container.decode([String].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .list(let values): try container.encode(values)
        }
    }
}
