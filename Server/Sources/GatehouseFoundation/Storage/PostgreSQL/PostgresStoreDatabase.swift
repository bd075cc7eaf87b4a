import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit

/// The engine for several server nodes: PostgreSQL through PostgresNIO's connection pool.
///
/// Every query is the same dialect-neutral SQL the SQLite engine runs; transactions run on one pooled
/// connection, and ``lock(_:in:)`` takes a transaction-scoped advisory lock.
package final class PostgresStoreDatabase: Database {
    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger: Logger
    private let statements = PreparedStatementNames()
    /// How long work waits for a pooled connection before it fails as ``DatabaseError/unavailable(waited:)``; `nil` waits
    /// as long as it takes. The pool itself would wait without end while PostgreSQL is unreachable.
    private let connectionWait: Duration?

    private init(client: PostgresClient, runner: Task<Void, Never>, logger: Logger, connectionWait: Duration?) {
        self.client = client
        self.runner = runner
        self.logger = logger
        self.connectionWait = connectionWait
    }

    /// Connects to `url` (`postgres://user:password@host:port/database?sslmode=disable|prefer|require`)
    /// and checks that the server answers. The pool opens up to `maximumConnections` connections as work needs them.
    package static func open(url: String, logger: Logger, maximumConnections: Int = 32, connectionWait: Duration? = nil) async throws -> PostgresStoreDatabase {
        let printable = DatabaseLocation.redactingCredentials(url)
        let location = try PostgresLocation(url: url, printable: printable)
        // The pool retries refused connections forever; one direct connection first turns
        // "nothing listens" or "wrong password" into an error at once.
        do {
            let probe = try await PostgresConnection.connect(configuration: location.connectionConfiguration(), id: 0, logger: logger)
            try await probe.close()
        } catch {
            throw DatabaseError.cannotOpen(path: printable, reason: describe(error))
        }
        let client = PostgresClient(configuration: location.clientConfiguration(maximumConnections: maximumConnections), backgroundLogger: logger)
        let runner = Task { await client.run() }
        return PostgresStoreDatabase(client: client, runner: runner, logger: logger, connectionWait: connectionWait)
    }

    /// PostgreSQL's own message when there is one (wrong password, unknown database), else the error.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return String(describing: underlying) }
            return "PostgreSQL error \(error.code)"
        }
        return String(describing: error)
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let run = { [statements] in
            try await self.leased { connection in
                try await body(PreparedStatementSQLDatabase(connection: connection, names: statements))
            }
        }
        do {
            return try await run()
        } catch let error where PreparedStatementSQLDatabase.isStale(error) {
            // Prepared afresh under a new name.
            return try await run()
        }
    }

    package func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await leased { [logger, statements] connection in
            try await connection.query("START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                let value = try await body(PreparedStatementSQLDatabase(connection: connection, names: statements))
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Runs `body` in a transaction; one that PostgreSQL aborts as a deadlock victim or a serialization
    /// failure (two nodes revoking the same token family at once, say) is run again, a few times at most.
    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await retrying { [logger, statements] in
            do {
                return try await self.leased { connection in
                    try await connection.withTransaction(logger: logger) { connection in
                        try await body(PreparedStatementSQLDatabase(connection: connection, names: statements))
                    }
                }
            } catch let error as PostgresTransactionError {
                // Surface the caller's own error (e.g. an OAuth error that rolled the transaction back).
                throw error.closureError ?? error.beginError ?? error.commitError ?? error
            }
        }
    }

    package var engine: DatabaseEngine { .postgresql }

    /// Runs `body` on a pooled connection outside a transaction: its closing statement commits by itself. Run again
    /// when PostgreSQL aborted that statement as a deadlock victim or serialization failure (nothing was written).
    package func autocommit<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await retrying { [statements] in
            try await self.leased { connection in
                try await body(PreparedStatementSQLDatabase(connection: connection, names: statements))
            }
        }
    }

    /// Where a lease with a deadline stands: waiting for a connection, given one in time, or given up.
    private enum Lease { case waiting, leased, abandoned }

    /// Runs `body` on a pooled connection, waiting at most ``connectionWait`` for one: past it the lease is cancelled
    /// and the work fails as ``DatabaseError/unavailable(waited:)`` without running. Once `body` has its connection it
    /// runs to its end, however long, unless the connection closes under it (``answering(on:whenItCloses:_:)``).
    private func leased<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard let wait = connectionWait else { return try await client.withConnection { try await body($0) } }
        let lease = NIOLockedValueBox(Lease.waiting)
        return try await withThrowingTaskGroup(of: T?.self) { [client] group in
            group.addTask {
                do {
                    return try await client.withConnection { connection in
                        let mine = lease.withLockedValue { state in
                            guard state == .waiting else { return false }
                            state = .leased
                            return true
                        }
                        guard mine else { throw DatabaseError.unavailable(waited: wait) }
                        return try await Self.answering(on: connection, whenItCloses: DatabaseError.unavailable(waited: wait), body)
                    }
                } catch {
                    // No connection at all (the pool stopped trying to connect), or the one it had was lost on the way:
                    // the database is out of reach, as when the wait runs out.
                    if lease.withLockedValue({ $0 }) != .leased || Self.isConnectionLoss(error) { throw DatabaseError.unavailable(waited: wait) }
                    throw error
                }
            }
            group.addTask {
                try await Task.sleep(for: wait)
                let abandoned = lease.withLockedValue { state in
                    guard state == .waiting else { return false }
                    state = .abandoned
                    return true
                }
                if abandoned { throw DatabaseError.unavailable(waited: wait) }
                return nil
            }
            while let finished = try await group.next() {
                if let value = finished {
                    group.cancelAll()
                    return value
                }
            }
            throw DatabaseError.unavailable(waited: wait)
        }
    }

    /// How long a query on a connection that closed still has to bring its answer before it counts as lost.
    static let lostQueryGrace = TimeAmount.milliseconds(500)

    /// `body`'s result on `connection`, or `lost` shortly after the connection closes while `body` still waits: a query
    /// sent as PostgreSQL stops can be lost with its connection and never answered, and the request it serves must
    /// still answer. `body` runs in a task of its own so that returning does not wait for it; a lost one is cancelled
    /// and ends with its connection.
    static func answering<T: Sendable>(
        on connection: PostgresConnection, whenItCloses lost: any Error, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
        let work = NIOLockedValueBox<Task<Void, Never>?>(nil)
        /// The first of the result and the loss to arrive answers; the other finds nobody waiting.
        @Sendable func answer(_ result: Result<T, any Error>) {
            let continuation = waiting.withLockedValue { current in
                defer { current = nil }
                return current
            }
            continuation?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.withLockedValue { $0 = continuation }
                work.withLockedValue { task in
                    task = Task {
                        do {
                            answer(.success(try await body(connection)))
                        } catch {
                            answer(.failure(error))
                        }
                    }
                }
                connection.closeFuture.whenComplete { _ in
                    connection.eventLoop.scheduleTask(in: Self.lostQueryGrace) {
                        guard waiting.withLockedValue({ $0 != nil }) else { return }
                        work.withLockedValue { $0 }?.cancel()
                        answer(.failure(lost))
                    }
                }
            }
        } onCancel: {
            work.withLockedValue { $0 }?.cancel()
        }
    }

    private func retrying<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await work()
            } catch let error where Self.isRetryable(error) && attempt < Self.maximumAttempts {
                logger.debug("Running a transaction again after PostgreSQL aborted it", metadata: ["attempt": "\(attempt)"])
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...25) * attempt))
            }
        }
    }

    package static let maximumAttempts = 5

    /// Whether `error` is the connection to PostgreSQL breaking (the server stopped, the network went) rather than a
    /// statement failing.
    package static func isConnectionLoss(_ error: any Error) -> Bool {
        if let error = error as? PostgresTransactionError {
            // BEGIN, the body or COMMIT lost the connection; a failed ROLLBACK after the body's own error says nothing more.
            return [error.beginError, error.closureError, error.commitError].contains { $0.map(isConnectionLoss) ?? false }
        }
        guard let error = error as? PSQLError else { return false }
        // The pool closes its connections itself when the server goes (clientClosedConnection) as well as when it hears.
        if [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code) { return true }
        // The server shutting down or starting (57P01–57P03) and connection exceptions (class 08) say the same.
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return ["57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
    }

    /// Deadlock victims (40P01) and serialization failures (40001) succeed when simply tried again, as does a
    /// transaction whose prepared statement broke (it is prepared afresh; see ``PreparedStatementSQLDatabase``).
    package static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40P01" || state == "40001" || PreparedStatementSQLDatabase.isStale(error)
    }

    package func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws {
        try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: lock.rawValue))").run()
    }

    package func tryLock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT pg_try_advisory_xact_lock(\(bind: lock.rawValue)) AS taken").first()?.decode(column: "taken", as: Bool.self) ?? false
    }

    package func close() async throws {
        runner.cancel()
    }
}

/// A parsed `postgres://` URL.
package struct PostgresLocation {
    package enum SSLMode { case disable, prefer, require }

    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String?
    package var sslMode: SSLMode

    package init(url: String, printable: String) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["postgres", "postgresql"].contains(scheme), let host = components.host, !host.isEmpty
        else {
            throw DatabaseError.cannotOpen(path: printable, reason: "write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let user = components.user, !user.isEmpty else {
            throw DatabaseError.cannotOpen(path: printable, reason: "the URL names no user")
        }
        self.host = host
        port = components.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        password = components.password?.removingPercentEncoding
        let name = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = name.isEmpty ? nil : name
        switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
        case "disable": sslMode = .disable
        case "prefer", "allow": sslMode = .prefer
        case "require", "verify-ca", "verify-full": sslMode = .require
        case let other:
            throw DatabaseError.cannotOpen(path: printable, reason: "unknown sslmode \(other); use disable, prefer or require")
        }
    }

    package func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.maximumConnections = maximumConnections
        return configuration
    }

    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch sslMode {
            case .disable: .disable
            case .prefer: .prefer(try .init(configuration: .makeClientConfiguration()))
            case .require: .require(try .init(configuration: .makeClientConfiguration()))
            }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
