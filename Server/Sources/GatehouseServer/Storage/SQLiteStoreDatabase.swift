import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit

/// The embedded engine: one SQLite file in WAL mode.
///
/// Writes go through one connection, serialized by a FIFO lock, inside `BEGIN IMMEDIATE` transactions;
/// reads go through a second connection so they never wait for a writer.
final class SQLiteStoreDatabase: Database {
    private let writer: SQLiteConnection
    private let reader: SQLiteConnection
    private let writeLock = AsyncSerialLock()
    private let logger: Logger

    private init(writer: SQLiteConnection, reader: SQLiteConnection, logger: Logger) {
        self.writer = writer
        self.reader = reader
        self.logger = logger
    }

    static func open(path: String, logger: Logger) async throws -> SQLiteStoreDatabase {
        let storage: SQLiteConnection.Storage = path == ":memory:" ? .memory : .file(path: path)
        if case .file = storage {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: folder) else {
                throw DatabaseError.cannotOpen(path: path, reason: "the folder \(folder) does not exist")
            }
        }
        let writer: SQLiteConnection
        do {
            writer = try await SQLiteConnection.open(storage: storage, logger: logger)
        } catch {
            throw DatabaseError.cannotOpen(path: path, reason: "\(error)")
        }
        do {
            // WAL lets readers run beside the writer; the busy timeout covers other processes (the CLI) writing.
            for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA busy_timeout = 5000", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL"] {
                _ = try await writer.query(pragma)
            }
            let reader: SQLiteConnection
            if case .memory = storage {
                reader = writer
            } else {
                reader = try await SQLiteConnection.open(storage: storage, logger: logger)
                _ = try await reader.query("PRAGMA busy_timeout = 5000")
            }
            return SQLiteStoreDatabase(writer: writer, reader: reader, logger: logger)
        } catch {
            try? await writer.close()
            throw DatabaseError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await body(reader.sql(queryLogLevel: nil))
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let sql = writer.sql(queryLogLevel: nil)
        return try await writeLock.withLock {
            _ = try await writer.query("BEGIN IMMEDIATE")
            do {
                let result = try await body(sql)
                _ = try await writer.query("COMMIT")
                return result
            } catch {
                _ = try? await writer.query("ROLLBACK")
                throw error
            }
        }
    }

    /// `BEGIN IMMEDIATE` already gives a transaction the database's only write lock.
    func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws {}

    func close() async throws {
        if reader !== writer { try await reader.close() }
        try await writer.close()
    }
}
