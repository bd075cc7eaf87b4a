import VaporCSQLite

/// A statement SQLite refused or failed, with SQLite's own words and result code.
package struct SQLiteStatementError: Error, CustomStringConvertible, Sendable {
    /// The (extended) result code, e.g. 2067 for a UNIQUE constraint.
    package let code: Int32
    package let message: String

    /// Another connection (usually another process) holds the lock this statement needs.
    package var isBusy: Bool { code & 0xFF == SQLITE_BUSY }

    /// Whether the disk or the database is full (`SQLITE_FULL`): writes fail until space is made.
    package var isFull: Bool { code & 0xFF == SQLITE_FULL }

    /// SQLite's name for the result code, e.g. "database or disk is full".
    package var codeName: String { String(cString: sqlite_nio_sqlite3_errstr(code)) }

    package var description: String {
        "SQLite error \(code) (\(codeName)): \(message)"
    }
}
