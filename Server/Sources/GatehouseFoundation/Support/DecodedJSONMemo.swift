import Foundation
import NIOConcurrencyHelpers

/// JSON texts already decoded, by their text: the few lists and settings stored as JSON (a client's redirect URIs, a
/// resource's scopes) are read on every token request, and a decoder run costs more than the rest of reading the row.
/// Decoding is a function of the text alone, so nothing here goes stale. Bounded; emptied whole when full.
package final class DecodedJSONMemo<Value: Decodable & Sendable>: Sendable {
    private let decoded = NIOLockedValueBox<[String: Value]>([:])
    private let limit: Int
    // Shared: each new decoder is an allocation of its own.
    private let decoder = JSONDecoder()

    package init(limit: Int = 1024) {
        self.limit = limit
    }

    /// `text` decoded as `Value`, from the memo when it was decoded before.
    package func decode(_ text: String) throws -> Value {
        if let known = decoded.withLockedValue({ $0[text] }) { return known }
        let value = try decoder.decode(Value.self, from: Data(text.utf8))
        decoded.withLockedValue { decoded in
            if decoded.count >= limit { decoded.removeAll(keepingCapacity: true) }
            decoded[text] = value
        }
        return value
    }
}
