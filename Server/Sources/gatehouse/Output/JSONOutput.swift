import Foundation

/// Prints values as pretty JSON for scripts; dates as ISO 8601 text, as the tool prints them everywhere.
enum JSONOutput {
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        Swift.print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
