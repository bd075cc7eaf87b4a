import Logging
import PostgresNIO
import SQLiteNIO

/// The database's own reason for a failure (`SQLite: full (database or disk is full)`, `PostgreSQL 53100: could not
/// extend file`), for logs: an operator needs the disk-full or connection code, not just the error's type. Only the
/// engine's code and its message go in — never the statement or its values (PostgreSQL's `detail`, which can quote
/// a row, is left out).
package enum DatabaseFailure {
    package static func reason(of error: any Error) -> String? {
        if let error = error as? SQLiteError { return "SQLite: \(error.reason) (\(error.message))" }
        if let error = error as? SQLiteStatementError { return error.description }
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] {
                return "PostgreSQL \(state): \(error.serverInfo?[.message] ?? "")"
            }
            return "PostgreSQL: \(error.code)"
        }
        if let error = error as? DatabaseError { return error.description }
        return nil
    }

    /// Whether `error` says the disk (or the database) is full: SQLite's `SQLITE_FULL`, PostgreSQL's `53100`.
    package static func isFull(_ error: any Error) -> Bool {
        if let error = error as? SQLiteStatementError { return error.isFull }
        if let error = error as? SQLiteError { return error.reason == .full }
        if let error = error as? PSQLError { return error.serverInfo?[.sqlState] == "53100" }
        return false
    }

    /// Log metadata for `error`: its type, and the database's reason when it is a database's error.
    package static func metadata(_ error: any Error) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["error": "\(String(reflecting: type(of: error)))"]
        if let reason = reason(of: error) { metadata["database"] = "\(reason)" }
        return metadata
    }
}
