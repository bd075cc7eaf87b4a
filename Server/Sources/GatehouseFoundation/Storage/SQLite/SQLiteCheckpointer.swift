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
        /// Closers waiting for the running checkpoint to end.
        var closers: [CheckedContinuation<Void, Never>] = []
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

    /// Stops future checkpoints and closes the connection; while a checkpoint holds it, returns when that ends.
    ///
    /// A checkpoint left running would still hold the file's locks after the database "closed": the next open of
    /// the same file (a backup's check, a restart) would find it locked.
    package func close() async {
        await withCheckedContinuation { (closer: CheckedContinuation<Void, Never>) in
            // While a checkpoint runs, it closes the connection and resumes the closer when it ends.
            let (waits, connection) = state.withLockedValue { state -> (Bool, SQLiteConnectionHandle?) in
                state.isClosed = true
                if state.isRunning {
                    state.closers.append(closer)
                    return (true, nil)
                }
                defer { state.connection = nil }
                return (false, state.connection)
            }
            guard !waits else { return }
            connection?.close()
            closer.resume()
        }
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
        let (closing, closers) = state.withLockedValue { state -> (SQLiteConnectionHandle?, [CheckedContinuation<Void, Never>]) in
            state.isRunning = false
            if checkpointed { state.completed += 1 }
            guard state.isClosed else { return (nil, []) }
            defer {
                state.connection = nil
                state.closers = []
            }
            return (state.connection, state.closers)
        }
        closing?.close()
        closers.forEach { $0.resume() }
    }
}
