import Foundation

/// A phone number in E.164 form (`+` and up to 15 digits, the country code first), read from what people type:
/// spaces, dots, dashes, slashes and brackets are dropped, a leading `00` is read as `+`, and the trunk zero that some
/// countries write in brackets after the country code (`+44 (0)20 7946 0958`) is left out. The server and the SDK
/// read numbers with this one type, so a number one accepts the other accepts too.
public struct PhoneNumber: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The number in E.164 form, e.g. `+14155550100`.
    public let e164: String

    /// What a phone number field accepts before the number is read: a `+` or `00`, then digits and separators.
    /// Whether the digits make a number is up to ``init(_:)``.
    public static let fieldPattern = "(\\+|00)[1-9][0-9 ./()-]{5,28}"

    /// What to tell someone whose number could not be read.
    public static let hint = "Enter the number with its country code, e.g. +14155550100."

    /// Reads `text` as typed; `nil` unless it holds a country code and 7 to 15 digits in all.
    public init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest.hasPrefix("+") {
            rest = rest.dropFirst()
        } else if rest.hasPrefix("00") {
            rest = rest.dropFirst(2)
        } else {
            return nil
        }
        let withoutTrunk = String(rest).replacingOccurrences(of: "(0)", with: "")
        guard withoutTrunk.allSatisfy({ $0.isASCII && ($0.isNumber || " ./()-".contains($0)) }) else { return nil }
        let digits = withoutTrunk.filter(\.isNumber)
        guard (7...15).contains(digits.count), digits.first != "0" else { return nil }
        e164 = "+" + digits
    }

    /// The number in E.164 form.
    public var description: String { e164 }

    /// Decodes a number from its text, refusing text that is not a phone number.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let number = PhoneNumber(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Self.hint))
        }
        self = number
    }

    /// Encodes the number in E.164 form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(e164)
    }
}
