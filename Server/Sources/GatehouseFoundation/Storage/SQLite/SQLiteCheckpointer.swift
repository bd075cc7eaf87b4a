import Foundation
import NIOConcurrencyHelpers
import NIOPosix

/// Copies committed pages from the write-ahead log back into the database file, beside the writer.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on the one writer
/// connection, and ends with an `fsync`: every transaction queued behind that commit waits for the disk.
/// Here a second connection checkpoints in passive mode (it never blocks the writer or readers) on
/// NIO's blocking-work pool, at most every ``interval`` while there are commits to copy. The writer keeps
/// an automatic checkpoint only as a backstop, at a threshold the background one keeps it below.
package final class SQLiteCheckpointer: Sendable {
    /// The writer's own automatic checkpoint, in pages: reached only if background checkpoints fall behind.
    package static let writerBackstopPages = 10_000
    package static let interval: Duration = .milliseconds(200)

    private struct State {
        var connection: SQLiteConnectionHandle?
        var isRunning = false
        var lastStart: ContinuousClock.Instant?
        var isClosed = false
        var completed = 0
    }

    private let path: String
    private let state = NIOLockedValueBox(State())
    private let clock = ContinuousClock()

    package init(path: String) {
        self.path = path
    }

    /// How many background checkpoints have succeeded (for tests and diagnostics).
    package var completedCheckpoints: Int { state.withLockedValue(\.completed) }

    /// Called after each commit of the writer: starts a checkpoint when none runs and the last began long enough ago.
    package func committed() {
        let now = clock.now
        let start = state.withLockedValue { state -> Bool in
            guard !state.isClosed, !state.isRunning else { return false }
            if let last = state.lastStart, now - last < Self.interval { return false }
            state.isRunning = true
            state.lastStart = now
            return true
        }
        guard start else { return }
        NIOThreadPool.singleton.submit { [self] _ in run() }
    }

    /// Stops future checkpoints and closes the connection, at once or, while a checkpoint holds it, when that ends.
    package func close() {
        let connection = state.withLockedValue { state -> SQLiteConnectionHandle? in
            state.isClosed = true
            guard !state.isRunning else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
        connection?.close()
    }

    private func run() {
        var checkpointed = false
        do {
            let connection = try state.withLockedValue { state -> SQLiteConnectionHandle? in
                guard !state.isClosed else { return nil }
                if let connection = state.connection { return connection }
                let connection = try SQLiteConnectionHandle(path: path)
                connection.setBusyTimeout(milliseconds: 1000)
                state.connection = connection
                return connection
            }
            // A failed checkpoint (another process holds a lock a passive checkpoint cannot pass) is retried
            // after the next commit; the writer's backstop covers a run of failures.
            if let connection {
                try connection.execute("PRAGMA wal_checkpoint(PASSIVE)", [])
                checkpointed = true
            }
        } catch {}
        let closing = state.withLockedValue { state -> SQLiteConnectionHandle? in
            state.isRunning = false
            if checkpointed { state.completed += 1 }
            guard state.isClosed else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
        closing?.close()
    }
}
