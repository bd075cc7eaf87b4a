import Dispatch
import NIOConcurrencyHelpers
import SQLKit
import Tracing

/// A database whose transactions nest: a ``transaction(_:)`` or ``read(_:)`` called while the task already runs in
/// one of this database's transactions joins it (see ``TransactionScope``).
///
/// A joined transaction is part of the one it joins: when it throws, the whole transaction rolls back, even if a
/// caller catches the error and goes on (the outer transaction then fails with it), so nothing half-done is ever
/// committed. Where failing and going on is intended — a duplicate name that sends the person back to the form —
/// ``TransactionScope/recoverable(_:)`` runs the part in a savepoint, undone alone. (Savepoints everywhere cost a
/// TOTP sign-in 5–10 % of its throughput on SQLite, so they are used only there.) A joined read sees the
/// transaction's own writes.
final class ScopedDatabase: Database {
    let base: any Database
    private let counts = NIOLockedValueBox(Counts())

    private struct Counts {
        var roundTrips = RoundTrips()
        var underWay = UnderWay()
        var lastFull: ContinuousClock.Instant?
    }

    /// When a write last failed because the disk (or database) was full, if one did: readiness reports it, since a
    /// probe's own small write may still fit where a sign-in's does not.
    var lastFullDiskFailure: ContinuousClock.Instant? { counts.withLockedValue { $0.lastFull } }

    /// The reads and transactions that went to the database itself (joined ones are not counted): what a request
    /// costs the database, and what the tests hold the flow engine to.
    struct RoundTrips: Sendable, Equatable {
        var reads = 0
        var transactions = 0
    }

    /// The round trips so far.
    var roundTrips: RoundTrips { counts.withLockedValue { $0.roundTrips } }

    /// Reads and transactions under way: holding a connection (SQLite's writer, a PostgreSQL pool connection) or
    /// waiting for one. What the metrics show of the connection pool.
    struct UnderWay: Sendable, Equatable {
        var reads = 0
        var transactions = 0
    }

    /// The reads and transactions under way now.
    var underWay: UnderWay { counts.withLockedValue { $0.underWay } }

    /// What a span of this database's work says of it (OpenTelemetry's database conventions).
    private let spanAttributes: SpanAttributes

    init(_ base: any Database) {
        self.base = base
        spanAttributes = ["db.system.name": .string(base.engine.rawValue)]
    }

    var engine: DatabaseEngine { base.engine }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if let scope = TransactionScope.joinable(of: self) { return try await body(scope.sql) }
        return try await countedRead { try await self.base.read(body) }
    }

    /// Inside a transaction, part of it (it sees one state too); otherwise the engine's snapshot, counted as a read.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if let scope = TransactionScope.joinable(of: self) { return try await body(scope.sql) }
        return try await countedRead { try await self.base.snapshot(body) }
    }

    /// `work`, a read that reaches the database, counted and traced as one.
    private func countedRead<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        counts.withLockedValue {
            $0.roundTrips.reads += 1
            $0.underWay.reads += 1
        }
        defer { counts.withLockedValue { $0.underWay.reads -= 1 } }
        return try await Traces.span("db read", kind: .client, attributes: spanAttributes) { try await work() }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if let scope = TransactionScope.joinable(of: self) {
            do {
                return try await body(scope.sql)
            } catch {
                scope.fail(error)
                throw error
            }
        }
        let database = ObjectIdentifier(self)
        // PostgreSQL may run the body again (a deadlock victim): each run has its own scope, and only the run that
        // committed hands back its after-commit work.
        // The engines may run the body on another task: the request's audit context goes along explicitly.
        let audit = AuditContext.current
        let caller = CallerPresence.current
        let (value, afterCommit) = try await counted { try await self.committed(body, database: database, audit: audit, caller: caller) }
        for work in afterCommit { work() }
        return value
    }

    /// Inside a transaction, part of it; otherwise the engine's own autocommitted statement, counted as a transaction.
    func autocommit<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if TransactionScope.joinable(of: self) != nil { return try await transaction(body) }
        let caller = CallerPresence.current
        return try await counted {
            // Its one write commits as it runs: the caller must still be there before it starts.
            try await self.base.autocommit { sql in
                if caller?.isGone == true { throw DatabaseError.callerGone }
                return try await body(sql)
            }
        }
    }

    /// `work`, a write that reaches the database, counted and timed as a transaction and traced as one.
    private func counted<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        counts.withLockedValue {
            $0.roundTrips.transactions += 1
            $0.underWay.transactions += 1
        }
        defer { counts.withLockedValue { $0.underWay.transactions -= 1 } }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { GatehouseMetrics.transaction(nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        do {
            return try await Traces.span("db transaction", kind: .client, attributes: spanAttributes) { try await work() }
        } catch  where DatabaseFailure.isFull(error) {
            counts.withLockedValue { $0.lastFull = .now }
            throw error
        }
    }

    /// Runs `body` in a transaction of the engine's, returning its value and the work to do once it committed.
    private func committed<T: Sendable>(
        _ body: @escaping @Sendable (any SQLDatabase) async throws -> T, database: ObjectIdentifier, audit: AuditContext,
        caller: CallerPresence?
    ) async throws -> (T, [@Sendable () -> Void]) {
        try await base.transaction { sql in
            let scope = TransactionScope(sql: sql, database: database)
            do {
                let value = try await AuditContext.$current.withValue(audit) {
                    try await TransactionScope.$current.withValue(scope) { try await body(sql) }
                }
                // A joined part failed and its caller went on: its writes may be half done, so nothing commits.
                if let failure = scope.failure { throw failure }
                // Nobody waits for the result any more: rolled back rather than done for no one.
                if caller?.isGone == true { throw DatabaseError.callerGone }
                return (value, scope.close())
            } catch {
                _ = scope.close()
                throw error
            }
        }
    }

    func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws {
        try await base.lock(lock, in: sql)
    }

    func tryLock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws -> Bool {
        try await base.tryLock(lock, in: sql)
    }

    func close() async throws {
        try await base.close()
    }
}

extension DatabaseOpener {
    /// `database` with transactions that nest: a store's transaction inside the caller's joins it, so a change and
    /// its audit event commit together (as they do in the server). The command-line tool opens its databases so.
    public static func joinable(_ database: any Database) -> any Database {
        database is ScopedDatabase ? database : ScopedDatabase(database)
    }
}
