import Foundation

/// Unix seconds as people and receivers read them: ISO 8601 in UTC, for the command line's tables, the account page and
/// the events hooks are sent.
package enum Timestamp {
    /// `seconds` as `2026-11-27T19:46:41Z`; `-` for none.
    package static func format(_ seconds: Int64?) -> String {
        guard let seconds else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
