import Foundation

/// JSON as the server sends it: keys sorted, so a document's bytes depend only on its content, and slashes unescaped.
package enum JSONDocument {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `value`'s JSON; a value that cannot be encoded gives an RFC 6749 `server_error` body instead.
    package static func encode(_ value: some Encodable) -> Data {
        (try? encoder.encode(value)) ?? Data(#"{"error":"server_error"}"#.utf8)
    }
}
