import Dispatch
import Metrics
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
package final class ScopedDatabase: Database {
    package let base: any Database
    private let counts = NIOLockedValueBox(Counts())

    private struct Counts {
        var roundTrips = RoundTrips()
        var underWay = UnderWay()
        var lastFull: ContinuousClock.Instant?
    }

    /// When a write last failed because the disk (or database) was full, if one did: readiness reports it, since a
    /// probe's own small write may still fit where a sign-in's does not.
    package var lastFullDiskFailure: ContinuousClock.Instant? { counts.withLockedValue { $0.lastFull } }

    /// The reads and transactions that went to the database itself (joined ones are not counted): what a request
    /// costs the database, and what the tests hold the flow engine to.
    package struct RoundTrips: Sendable, Equatable {
        package var reads = 0
        package var transactions = 0
    }

    /// The round trips so far.
    package var roundTrips: RoundTrips { counts.withLockedValue { $0.roundTrips } }

    /// Reads and transactions under way: holding a connection (SQLite's writer, a PostgreSQL pool connection) or
    /// waiting for one. What the metrics show of the connection pool.
    package struct UnderWay: Sendable, Equatable {
        package var reads = 0
        package var transactions = 0
    }

    /// The reads and transactions under way now.
    package var underWay: UnderWay { counts.withLockedValue { $0.underWay } }

    /// What a span of this database's work says of it (OpenTelemetry's database conventions).
    private let spanAttributes: SpanAttributes

    /// The task-local value a transaction's body must see although the engine may run it on a task of its own.
    private let carried: (any CarriedTaskLocal.Type)?

    /// How long outermost transactions take. Made at first use: the metrics backend is bootstrapped before that.
    private static let transactionTimer = Timer(label: "gatehouse_database_transaction_duration_seconds", preferredDisplayUnit: .seconds)

    /// `base` with transactions that nest; `carried` is the task-local value (the audit trail's request context) its
    /// transactions take along to the engine's task.
    package init(_ base: any Database, carrying carried: (any CarriedTaskLocal.Type)? = nil) {
        self.base = base
        self.carried = carried
        spanAttributes = ["db.system.name": .string(base.engine.rawValue)]
    }

    package var engine: DatabaseEngine { base.engine }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if let scope = TransactionScope.joinable(of: self) { return try await body(scope.sql) }
        return try await countedRead { try await self.base.read(body) }
    }

    /// Inside a transaction, part of it (it sees one state too); otherwise the engine's snapshot, counted as a read.
    package func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
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

    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
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
        // The engines may run the body on another task: the carried task-local value goes along explicitly.
        let carried = carried?.captured()
        let caller = CallerPresence.current
        let (value, afterCommit) = try await counted { try await self.committed(body, database: database, carrying: carried, caller: caller) }
        for work in afterCommit { work() }
        return value
    }

    /// Inside a transaction, part of it; otherwise the engine's own autocommitted statement, counted as a transaction.
    package func autocommit<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
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
        defer { Self.transactionTimer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        do {
            return try await Traces.span("db transaction", kind: .client, attributes: spanAttributes) { try await work() }
        } catch  where DatabaseFailure.isFull(error) {
            counts.withLockedValue { $0.lastFull = .now }
            throw error
        }
    }

    /// Runs `body` in a transaction of the engine's, returning its value and the work to do once it committed.
    private func committed<T: Sendable>(
        _ body: @escaping @Sendable (any SQLDatabase) async throws -> T, database: ObjectIdentifier,
        carrying carried: (any CarriedTaskLocal)?, caller: CallerPresence?
    ) async throws -> (T, [@Sendable () -> Void]) {
        try await base.transaction { sql in
            let scope = TransactionScope(sql: sql, database: database)
            do {
                let run = { try await TransactionScope.$current.withValue(scope) { try await body(sql) } }
                let value = if let carried { try await carried.restored(around: run) } else { try await run() }
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

    package func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws {
        try await base.lock(lock, in: sql)
    }

    package func tryLock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws -> Bool {
        try await base.tryLock(lock, in: sql)
    }

    package func close() async throws {
        try await base.close()
    }
}
