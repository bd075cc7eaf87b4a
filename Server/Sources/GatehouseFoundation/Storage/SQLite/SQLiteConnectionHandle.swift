import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SQLiteNIO
import VaporCSQLite

/// One SQLite connection, called directly on the calling thread.
///
/// SQLiteNIO runs every statement on a thread pool and hands the result back to an event loop: two thread
/// switches per statement, which dominated the cost of a token grant (a handful of indexed statements that
/// take microseconds each). Here a statement runs where it is called, from a cache of prepared statements.
/// A lock makes each ``execute(_:_:onRow:)`` call whole, so the handle may be shared; transactions are kept
/// apart by the caller (``SQLiteStoreDatabase`` gives the writer to one transaction at a time).
package final class SQLiteConnectionHandle: @unchecked Sendable {
    /// A prepared statement with its column names, reused while its SQL text comes back.
    private final class PreparedStatement {
        let pointer: OpaquePointer
        let columns: SQLiteRowColumns
        let parameterCount: Int

        init(pointer: OpaquePointer) {
            self.pointer = pointer
            parameterCount = Int(sqlite_nio_sqlite3_bind_parameter_count(pointer))
            let count = Int(sqlite_nio_sqlite3_column_count(pointer))
            columns = SQLiteRowColumns(names: (0..<count).map { String(cString: sqlite_nio_sqlite3_column_name(pointer, Int32($0))) })
        }

        deinit { sqlite_nio_sqlite3_finalize(pointer) }
    }

    /// Statements kept prepared; a bulk import's one-off statements beyond this clear the cache.
    private static let cacheLimit = 256

    // Guarded by `lock`: SQLite's own mutexes are off (SQLITE_OPEN_NOMUTEX) because this one covers them.
    private let lock = NIOLock()
    private var connection: OpaquePointer?
    private var statements: [String: PreparedStatement] = [:]

    /// Opens (creating if needed) the database at `path`, or a private in-memory one for `:memory:`.
    package init(path: String) throws {
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var connection: OpaquePointer?
        let status = sqlite_nio_sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? String(cString: sqlite_nio_sqlite3_errstr(status))
            sqlite_nio_sqlite3_close_v2(connection)
            throw SQLiteStatementError(code: status, message: message)
        }
        self.connection = connection
    }

    deinit { close() }

    /// How long a statement waits for another process's lock before it fails with `SQLITE_BUSY`.
    package func setBusyTimeout(milliseconds: Int32) {
        lock.withLock { _ = sqlite_nio_sqlite3_busy_timeout(connection, milliseconds) }
    }

    /// Whether a transaction is open (SQLite ends one by itself after some errors, e.g. a full disk).
    package var isInTransaction: Bool {
        lock.withLock { connection.map { sqlite_nio_sqlite3_get_autocommit($0) == 0 } ?? false }
    }

    /// Runs one statement with `binds`, handing each result row to `onRow` before the next is read.
    package func execute(_ sql: String, _ binds: [SQLiteData], onRow: (SQLiteRowValues) throws -> Void = { _ in }) throws {
        try lock.withLock {
            guard let connection else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
            let statement = try prepared(sql, on: connection)
            // Every parameter is bound on every run, so no value of an earlier run is left behind. The
            // bindings are not cleared: `sqlite3_clear_bindings` expires a statement whose plan looked at a
            // bound value (the userinfo endpoint's join does), and SQLite would then compile it on every run.
            guard binds.count == statement.parameterCount else {
                throw SQLiteStatementError(
                    code: SQLITE_RANGE, message: "the statement has \(statement.parameterCount) parameters, \(binds.count) values were given")
            }
            defer { sqlite_nio_sqlite3_reset(statement.pointer) }
            for (index, value) in binds.enumerated() {
                try check(bind(value, at: Int32(index + 1), in: statement.pointer), on: connection)
            }
            while true {
                let status = sqlite_nio_sqlite3_step(statement.pointer)
                if status == SQLITE_DONE { return }
                guard status == SQLITE_ROW else { throw error(status, on: connection) }
                try onRow(SQLiteRowValues(columns: statement.columns, values: values(of: statement)))
            }
        }
    }

    /// How many times the cached statement for `sql` ran and how many of those SQLite compiled it again;
    /// `nil` when it is not cached. For tests: a statement compiled on every run costs more than it does.
    package func statistics(of sql: String) -> (runs: Int, recompilations: Int)? {
        lock.withLock {
            guard let statement = statements[sql] else { return nil }
            return (
                Int(sqlite_nio_sqlite3_stmt_status(statement.pointer, SQLITE_STMTSTATUS_RUN, 0)),
                Int(sqlite_nio_sqlite3_stmt_status(statement.pointer, SQLITE_STMTSTATUS_REPREPARE, 0))
            )
        }
    }

    /// Finalizes every statement and closes the connection; later calls fail.
    package func close() {
        lock.withLock {
            statements.removeAll()
            if let connection { sqlite_nio_sqlite3_close_v2(connection) }
            connection = nil
        }
    }

    private func prepared(_ sql: String, on connection: OpaquePointer) throws -> PreparedStatement {
        if let statement = statements[sql] { return statement }
        var pointer: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = sql.withCString { text in
            let status = sqlite_nio_sqlite3_prepare_v3(connection, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, &tail)
            // Everything after the first statement would be ignored silently; refuse it instead.
            if status == SQLITE_OK, let tail, !String(cString: tail).allSatisfy(\.isWhitespace) {
                sqlite_nio_sqlite3_finalize(pointer)
                pointer = nil
                return SQLITE_MISUSE
            }
            return status
        }
        guard status == SQLITE_OK, let pointer else {
            if status == SQLITE_MISUSE {
                throw SQLiteStatementError(code: status, message: "only one statement can run per call")
            }
            throw error(status, on: connection)
        }
        let statement = PreparedStatement(pointer: pointer)
        if statements.count >= Self.cacheLimit { statements.removeAll() }
        statements[sql] = statement
        return statement
    }

    private func bind(_ value: SQLiteData, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let integer):
            sqlite_nio_sqlite3_bind_int64(statement, index, Int64(integer))
        case .float(let double):
            sqlite_nio_sqlite3_bind_double(statement, index, double)
        case .text(let text):
            sqlite_nio_sqlite3_bind_text64(statement, index, text, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
        case .blob(let buffer):
            buffer.withUnsafeReadableBytes {
                sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), Self.transient)
            }
        case .null:
            sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }

    private func values(of statement: PreparedStatement) -> [SQLiteData] {
        (0..<Int32(statement.columns.names.count)).map { column in
            let pointer = statement.pointer
            switch sqlite_nio_sqlite3_column_type(pointer, column) {
            case SQLITE_INTEGER:
                return .integer(SQLiteInt64(sqlite_nio_sqlite3_column_int64(pointer, column)))
            case SQLITE_FLOAT:
                return .float(sqlite_nio_sqlite3_column_double(pointer, column))
            case SQLITE_TEXT:
                let count = Int(sqlite_nio_sqlite3_column_bytes(pointer, column))
                guard let text = sqlite_nio_sqlite3_column_text(pointer, column) else { return .text("") }
                return .text(String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                let count = Int(sqlite_nio_sqlite3_column_bytes(pointer, column))
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                if let bytes = sqlite_nio_sqlite3_column_blob(pointer, column) {
                    buffer.writeBytes(UnsafeRawBufferPointer(start: bytes, count: count))
                }
                return .blob(buffer)
            default:
                return .null
            }
        }
    }

    private func check(_ status: Int32, on connection: OpaquePointer) throws {
        guard status == SQLITE_OK else { throw error(status, on: connection) }
    }

    private func error(_ status: Int32, on connection: OpaquePointer) -> SQLiteStatementError {
        SQLiteStatementError(code: status, message: String(cString: sqlite_nio_sqlite3_errmsg(connection)))
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes, which live only as long as the Swift value.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
