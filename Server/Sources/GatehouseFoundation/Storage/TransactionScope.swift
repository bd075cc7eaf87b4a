import NIOConcurrencyHelpers
import SQLKit

/// The transaction a task is running in, so that the stores it calls join it instead of opening their own.
///
/// A flow submission calls a dozen store methods (the flow, the account, guesses, codes, the finish and the
/// authorization code), each written as its own transaction. Run inside ``ScopedDatabase/transaction(_:)``, they
/// all become parts of that one transaction: they commit together or not at all, and the submission costs one
/// round trip to the writer instead of one per store call.
package final class TransactionScope: Sendable {
    /// The scope of the running task; tasks it starts inherit it but never join it (see ``isJoinable``).
    @TaskLocal package static var current: TransactionScope?

    package let sql: any SQLDatabase
    /// The ``ScopedDatabase`` whose transaction this is: another database's calls never join it.
    package let database: ObjectIdentifier
    private let state = NIOLockedValueBox(State())

    private struct State {
        var isOpen = true
        var savepoints = 0
        /// The first error a joined part threw, unless a ``recoverable(_:)`` part undid it.
        var failure: (any Error)?
        var afterCommit: [@Sendable () -> Void] = []
    }

    /// The task running the transaction's body: only its own calls join. Another task that inherited the scope
    /// (`Task { }` copies task-local values) must not use the connection at the same time; its calls open
    /// transactions of their own, which wait for this one.
    private let task: Int?

    package init(sql: any SQLDatabase, database: ObjectIdentifier) {
        self.sql = sql
        self.database = database
        self.task = Self.currentTask
    }

    /// The running task's identity while it runs (two tasks alive at once never share it).
    private static var currentTask: Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Whether a call of the running task joins this transaction: it is still open, and this is its task.
    package var isJoinable: Bool { state.withLockedValue { $0.isOpen } && task != nil && Self.currentTask == task }

    /// The running task's open transaction of `database` (a ``ScopedDatabase``), which its calls join.
    package static func joinable(of database: any Database) -> TransactionScope? {
        guard let scope = current, scope.database == ObjectIdentifier(database as AnyObject), scope.isJoinable else { return nil }
        return scope
    }

    /// Runs `work` once the transaction has committed, never if it rolls back: what must not happen for a change
    /// that is undone (delivering a queued message, say).
    package func afterCommit(_ work: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.afterCommit.append(work) }
    }

    /// Runs `work` after the running task's transaction of `database` commits, or now when there is none.
    package static func afterCommit(of database: any Database, _ work: @escaping @Sendable () -> Void) {
        guard let scope = joinable(of: database) else { return work() }
        scope.afterCommit(work)
    }

    /// Whether a password hash or another long computation would now hold the database's writer.
    package static var isHoldingWriter: Bool { current?.isJoinable == true }

    /// A joined part threw: the transaction must not commit (see ``ScopedDatabase``).
    package func fail(_ error: any Error) {
        state.withLockedValue { state in
            if state.failure == nil { state.failure = error }
        }
    }

    /// The error that keeps the transaction from committing, if any.
    package var failure: (any Error)? { state.withLockedValue { $0.failure } }

    /// Runs `body`, whose failure the caller handles and goes on from: in the running task's transaction, inside
    /// a savepoint, so that a failure undoes `body`'s writes alone and the transaction may still commit; outside
    /// one, simply runs it.
    package static func recoverable<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let scope = current, scope.isJoinable else { return try await body() }
        let (name, earlier) = scope.state.withLockedValue { state in
            state.savepoints += 1
            return ("scope_\(state.savepoints)", state.failure)
        }
        try await scope.sql.raw("SAVEPOINT \(unsafeRaw: name)").run()
        do {
            let value = try await body()
            try await scope.sql.raw("RELEASE SAVEPOINT \(unsafeRaw: name)").run()
            return value
        } catch {
            try await scope.sql.raw("ROLLBACK TO SAVEPOINT \(unsafeRaw: name)").run()
            try await scope.sql.raw("RELEASE SAVEPOINT \(unsafeRaw: name)").run()
            // Undone: what failed inside no longer keeps the transaction from committing.
            scope.state.withLockedValue { $0.failure = earlier }
            throw error
        }
    }

    /// Ends the scope; returns the work to run if it committed.
    package func close() -> [@Sendable () -> Void] {
        state.withLockedValue { state in
            state.isOpen = false
            defer { state.afterCommit.removeAll() }
            return state.afterCommit
        }
    }
}
