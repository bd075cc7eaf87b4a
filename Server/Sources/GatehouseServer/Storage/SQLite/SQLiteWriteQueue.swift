import NIOConcurrencyHelpers
import SQLKit

/// Runs write transactions on SQLite's one writer connection, several per commit when they queue up.
///
/// SQLite has one writer. With a plain lock, each transaction waits for the previous holder's task to be
/// scheduled again before the lock moves on, and each commit takes the file lock and appends to the WAL
/// on its own; under load that wait, not the SQL, was most of a token grant. Here the task that finds the
/// queue idle becomes its *runner*: it opens one SQLite transaction, runs every queued body inside a
/// savepoint of its own (a body that throws rolls back only itself), commits once, and hands each body
/// its result. If more bodies queued meanwhile, it wakes one of their tasks to run the next batch, so no
/// caller runs other callers' work for longer than one batch. Everything a body returns is committed,
/// as with one transaction per body.
final class SQLiteWriteQueue: Sendable {
    /// What a queued body is told: its result, or that it is the next runner.
    private enum Signal: Sendable {
        case finished(Result<any Sendable, any Error>)
        case run
    }

    private enum JobState {
        case queued
        case waiting(CheckedContinuation<Signal, Never>)
        case signalled(Signal)
    }

    private final class Job: Sendable {
        let body: @Sendable (any SQLDatabase) async throws -> any Sendable
        private let state = NIOLockedValueBox(JobState.queued)

        init(body: @escaping @Sendable (any SQLDatabase) async throws -> any Sendable) {
            self.body = body
        }

        func signal(_ signal: Signal) {
            let waiting = state.withLockedValue { state -> CheckedContinuation<Signal, Never>? in
                if case .waiting(let continuation) = state {
                    state = .queued
                    return continuation
                }
                state = .signalled(signal)
                return nil
            }
            waiting?.resume(returning: signal)
        }

        func nextSignal() async -> Signal {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> Signal? in
                    if case .signalled(let signal) = state {
                        state = .queued
                        return signal
                    }
                    state = .waiting(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    private struct Queue {
        var jobs: [Job] = []
        var hasRunner = false
        var sharedCommits = 0
    }

    /// How many bodies so far were committed together with others (for tests and diagnostics).
    var bodiesInSharedCommits: Int { queue.withLockedValue(\.sharedCommits) }

    private let queue = NIOLockedValueBox(Queue())
    private let sql: SQLiteHandleDatabase
    private var connection: SQLiteConnectionHandle { sql.handle }
    private let begin: @Sendable () async throws -> Void
    private let committed: @Sendable () -> Void

    /// - Parameters:
    ///   - begin: starts a write transaction on `sql`'s connection (waiting for other processes as needed).
    ///   - committed: called after each commit.
    init(sql: SQLiteHandleDatabase, begin: @escaping @Sendable () async throws -> Void, committed: @escaping @Sendable () -> Void = {}) {
        self.sql = sql
        self.begin = begin
        self.committed = committed
    }

    /// Runs `body` in a transaction: everything it writes is committed before it returns, or nothing is.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let job = Job(body: { try await body($0) })
        let runsNow = queue.withLockedValue { queue -> Bool in
            queue.jobs.append(job)
            guard !queue.hasRunner else { return false }
            queue.hasRunner = true
            return true
        }
        var signal = runsNow ? Signal.run : await job.nextSignal()
        while case .run = signal {
            await runBatch()
            signal = await job.nextSignal()
        }
        guard case .finished(let result) = signal else { preconditionFailure("a job ends with its result") }
        // The body produced a T; the queue only carried it type-erased.
        guard let value = try result.get() as? T else { preconditionFailure("a job's result has its body's type") }
        return value
    }

    /// Runs every queued body in one transaction, then passes the runner's role on (or ends it).
    private func runBatch() async {
        let batch = queue.withLockedValue { queue in
            defer { queue.jobs.removeAll() }
            if queue.jobs.count > 1 { queue.sharedCommits += queue.jobs.count }
            return queue.jobs
        }
        let results = await run(batch)
        let next = queue.withLockedValue { queue -> Job? in
            guard let first = queue.jobs.first else {
                queue.hasRunner = false
                return nil
            }
            return first
        }
        for (job, result) in zip(batch, results) { job.signal(.finished(result)) }
        next?.signal(.run)
    }

    private func run(_ batch: [Job]) async -> [Result<any Sendable, any Error>] {
        do {
            try await begin()
        } catch {
            return batch.map { _ in .failure(error) }
        }
        var results: [Result<any Sendable, any Error>] = []
        for job in batch {
            if batch.count == 1 {
                do {
                    results.append(.success(try await job.body(sql)))
                } catch {
                    results.append(.failure(error))
                }
                break
            }
            do {
                try connection.execute("SAVEPOINT job", [])
                let value = try await job.body(sql)
                try connection.execute("RELEASE job", [])
                results.append(.success(value))
            } catch {
                results.append(.failure(error))
                guard connection.isInTransaction else {
                    // SQLite gave the whole transaction up (e.g. the disk is full): nothing here committed.
                    return batch.map { _ in .failure(error) }
                }
                do {
                    try connection.execute("ROLLBACK TO job", [])
                    try connection.execute("RELEASE job", [])
                } catch {
                    try? connection.execute("ROLLBACK", [])
                    return batch.map { _ in .failure(error) }
                }
            }
        }
        if batch.count == 1, case .failure = results[0] {
            try? connection.execute("ROLLBACK", [])
            return results
        }
        do {
            try connection.execute("COMMIT", [])
            committed()
            return results
        } catch {
            try? connection.execute("ROLLBACK", [])
            return batch.map { _ in .failure(error) }
        }
    }
}
