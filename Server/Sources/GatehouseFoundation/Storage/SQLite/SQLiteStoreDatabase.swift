import Foundation
import Logging
import NIOConcurrencyHelpers
import SQLKit

/// The embedded engine: one SQLite file in WAL mode.
///
/// Writes go through one connection, in `BEGIN IMMEDIATE` transactions that the ``SQLiteWriteQueue`` runs one
/// after the other (several per commit under load); reads take a connection of their own from a small pool, so they never wait for a writer or for each other.
/// Statements run on the calling task's thread (``SQLiteConnectionHandle``): they take microseconds, less
/// than handing them to another thread would.
package final class SQLiteStoreDatabase: Database {
    /// How long a transaction waits for another process (the `gatehouse` CLI, a second server) to release
    /// the database's write lock before it fails.
    package static let lockWait: Duration = .seconds(5)

    private let path: String
    private let writer: SQLiteConnectionHandle
    package let writes: SQLiteWriteQueue
    /// `nil` for an in-memory database, which has no write-ahead log.
    package let checkpointer: SQLiteCheckpointer?
    /// Idle read connections; an in-memory database has none, because its data lives in the writer only.
    private let readers = NIOLockedValueBox(ReaderPool())
    private let logger: Logger

    private var isInMemory: Bool { path == ":memory:" }

    private init(path: String, writer: SQLiteConnectionHandle, logger: Logger, writerWait: Duration?) {
        self.path = path
        self.writer = writer
        self.logger = logger
        let checkpointer = path == ":memory:" ? nil : SQLiteCheckpointer(path: path)
        self.checkpointer = checkpointer
        writes = SQLiteWriteQueue(sql: SQLiteHandleDatabase(handle: writer, logger: logger), wait: writerWait) {
            try await Self.beginImmediate(on: writer)
        } committed: {
            checkpointer?.committed()
        } slow: { held, bodies in
            // Every other write waited this long: worth an operator's look (a CLI holding the lock, a slow disk).
            logger.warning(
                "A write transaction held SQLite's writer for \(Int(held / .milliseconds(1))) ms",
                metadata: ["bodies": "\(bodies)"])
        }
    }

    /// Opens the file at `path` (created when missing). A write waits at most `writerWait` for its turn at the writer.
    package static func open(
        path: String, logger: Logger, synchronous: SQLiteSynchronous = .normal, writerWait: Duration? = nil
    ) async throws -> SQLiteStoreDatabase {
        if path != ":memory:" {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: folder) else {
                throw DatabaseError.cannotOpen(path: path, reason: "the folder \(folder) does not exist")
            }
        }
        // Only the server's user may read the database: SQLite gives its -wal and -shm files the main file's mode,
        // so a new database file is created 0600 before SQLite opens it.
        if path != ":memory:", !FileManager.default.fileExists(atPath: path),
            !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        {
            throw DatabaseError.cannotOpen(path: path, reason: "the file cannot be created")
        }
        do {
            let writer = try SQLiteConnectionHandle(path: path)
            // Opening may meet another connection's lock on the file: the last one of another process (or of a
            // database closed a moment ago) checkpoints and removes the log as it closes.
            writer.setBusyTimeout(milliseconds: 5000)
            // WAL lets readers run beside the writer. The writer never sleeps inside SQLite: a transaction
            // that finds the lock taken by another process waits asynchronously (see `beginImmediate`).
            // The writer's page cache holds 32 MiB instead of SQLite's 2 MiB: with less, the token tables' index
            // pages fell out of it under load, and each was read back from the file inside a write transaction.
            for pragma in [
                "PRAGMA journal_mode = WAL", "PRAGMA foreign_keys = ON", "PRAGMA synchronous = \(synchronous.rawValue.uppercased())",
                "PRAGMA wal_autocheckpoint = \(SQLiteCheckpointer.writerBackstopPages)", "PRAGMA cache_size = -32768",
            ] {
                try writer.execute(pragma, [])
            }
            writer.setBusyTimeout(milliseconds: 0)
            return SQLiteStoreDatabase(path: path, writer: writer, logger: logger, writerWait: writerWait)
        } catch {
            throw DatabaseError.cannotOpen(path: path, reason: "\(error)")
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if isInMemory { return try await body(SQLiteHandleDatabase(handle: writer, logger: logger)) }
        let reader = try takeReader()
        defer { returnReader(reader) }
        return try await body(SQLiteHandleDatabase(handle: reader, logger: logger))
    }

    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writes.transaction(body)
    }

    /// A read transaction on a reader: its first read fixes the WAL snapshot every later statement sees.
    package func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if isInMemory { return try await writes.transaction(body) }
        let reader = try takeReader()
        defer { returnReader(reader) }
        try reader.execute("BEGIN", [])
        do {
            let value = try await body(SQLiteHandleDatabase(handle: reader, logger: logger))
            try reader.execute("COMMIT", [])
            return value
        } catch {
            try? reader.execute("ROLLBACK", [])
            throw error
        }
    }

    package var engine: DatabaseEngine { .sqlite }

    /// The writer's transactions cost no round trips, and the writer's page cache is warm for the reads before the write.
    package func autocommit<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await writes.transaction(body)
    }

    /// `BEGIN IMMEDIATE` already gives a transaction the database's only write lock.
    package func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws {}

    /// The write transaction holds the database's only write lock: nobody else can hold `lock`.
    package func tryLock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws -> Bool { true }

    package func close() async throws {
        await writes.close()
        // A read still running keeps its connection; it closes as it comes back (see `returnReader`).
        let idle = readers.withLockedValue { pool in
            pool.isClosed = true
            defer { pool.idle.removeAll() }
            return pool.idle
        }
        idle.forEach { $0.close() }
        await checkpointer?.close()
        writer.close()
    }

    /// Takes the write lock, waiting (without holding a thread) while another process has it.
    private static func beginImmediate(on writer: SQLiteConnectionHandle) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + lockWait
        var pause = Duration.milliseconds(1)
        while true {
            do {
                try writer.execute("BEGIN IMMEDIATE", [])
                return
            } catch let error as SQLiteStatementError where error.isBusy && clock.now < deadline {
                // Detached: the runner's cancellation must not fail the other callers' transactions.
                let wait = pause
                await Task.detached { try? await Task.sleep(for: wait) }.value
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    private func takeReader() throws -> SQLiteConnectionHandle {
        let idle = try readers.withLockedValue { pool -> SQLiteConnectionHandle? in
            guard !pool.isClosed else { throw DatabaseError.closed }
            return pool.idle.popLast()
        }
        if let idle { return idle }
        let reader = try SQLiteConnectionHandle(path: path)
        // Readers never wait for the writer in WAL mode; this covers another process checkpointing.
        reader.setBusyTimeout(milliseconds: 5000)
        return reader
    }

    private func returnReader(_ reader: SQLiteConnectionHandle) {
        // Keep a few for the next reads; a burst's extra connections close.
        let kept = readers.withLockedValue { pool -> Bool in
            guard !pool.isClosed, pool.idle.count < 8 else { return false }
            pool.idle.append(reader)
            return true
        }
        if !kept { reader.close() }
    }

    /// The read connections waiting for the next read, and whether the database was closed (then none are kept).
    private struct ReaderPool {
        var idle: [SQLiteConnectionHandle] = []
        var isClosed = false
    }
}
