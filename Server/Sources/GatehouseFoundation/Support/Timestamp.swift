import Foundation

/// Unix seconds as people read them: ISO 8601 in UTC, for the command line's tables and the account page.
package enum Timestamp {
    /// `seconds` as `2026-11-27T19:46:41Z`; `-` for none.
    package static func format(_ seconds: Int64?) -> String {
        guard let seconds else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
