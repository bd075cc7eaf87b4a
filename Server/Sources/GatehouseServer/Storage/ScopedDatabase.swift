import Dispatch
import NIOConcurrencyHelpers
import SQLKit

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
    private let counts = NIOLockedValueBox(RoundTrips())

    /// The reads and transactions that went to the database itself (joined ones are not counted): what a request
    /// costs the database, and what the tests hold the flow engine to.
    struct RoundTrips: Sendable, Equatable {
        var reads = 0
        var transactions = 0
    }

    /// The round trips so far.
    var roundTrips: RoundTrips { counts.withLockedValue { $0 } }

    init(_ base: any Database) {
        self.base = base
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        if let scope = TransactionScope.joinable(of: self) { return try await body(scope.sql) }
        counts.withLockedValue { $0.reads += 1 }
        return try await base.read(body)
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
        counts.withLockedValue { $0.transactions += 1 }
        let started = DispatchTime.now().uptimeNanoseconds
        defer { GatehouseMetrics.transaction(nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds - started)) }
        let database = ObjectIdentifier(self)
        // PostgreSQL may run the body again (a deadlock victim): each run has its own scope, and only the run that
        // committed hands back its after-commit work.
        // The engines may run the body on another task: the request's audit context goes along explicitly.
        let audit = AuditContext.current
        let (value, afterCommit) = try await base.transaction { sql in
            let scope = TransactionScope(sql: sql, database: database)
            do {
                let value = try await AuditContext.$current.withValue(audit) {
                    try await TransactionScope.$current.withValue(scope) { try await body(sql) }
                }
                // A joined part failed and its caller went on: its writes may be half done, so nothing commits.
                if let failure = scope.failure { throw failure }
                return (value, scope.close())
            } catch {
                _ = scope.close()
                throw error
            }
        }
        for work in afterCommit { work() }
        return value
    }

    func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws {
        try await base.lock(lock, in: sql)
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
