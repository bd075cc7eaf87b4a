import VaporCSQLite

/// A statement SQLite refused or failed, with SQLite's own words and result code.
struct SQLiteStatementError: Error, CustomStringConvertible, Sendable {
    /// The (extended) result code, e.g. 2067 for a UNIQUE constraint.
    let code: Int32
    let message: String

    /// Another connection (usually another process) holds the lock this statement needs.
    var isBusy: Bool { code & 0xFF == SQLITE_BUSY }

    var description: String {
        "SQLite error \(code): \(message)"
    }
}
