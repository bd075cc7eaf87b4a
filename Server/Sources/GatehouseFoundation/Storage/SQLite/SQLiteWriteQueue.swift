import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLKit

/// Runs write transactions on SQLite's one writer connection, several per commit when they queue up.
///
/// SQLite has one writer. One long-lived *writer task*, on a thread of its own (``SQLiteWriterThread``),
/// takes every queued body, opens one SQLite transaction, runs each body inside a savepoint of its own (a
/// body that throws rolls back only itself), commits once, and hands each caller its result. Callers only
/// wait for their result. Earlier, the caller that found the queue idle ran the batch and then woke the
/// next caller to run the following one; under load that wake-up waited behind every request in the
/// cooperative pool, and the writer sat idle more than half the time. Everything a body returns is
/// committed, as with one transaction per body.
package final class SQLiteWriteQueue: Sendable {
    private final class Job: Sendable {
        let body: @Sendable (any SQLDatabase) async throws -> any Sendable
        /// When its caller queued it: a job waiting longer than the queue's `wait` is given up.
        let queuedAt = ContinuousClock.now
        private let state = NIOLockedValueBox(JobState.queued)
        /// Whether the writer took the job, or its caller gave up waiting first: whichever comes first wins.
        private let turn = NIOLockedValueBox(Turn.waiting)

        enum Turn { case waiting, taken, abandoned }

        /// The writer takes the job; `false` when its caller has given up on it.
        func take() -> Bool {
            turn.withLockedValue { turn in
                guard turn == .waiting else { return false }
                turn = .taken
                return true
            }
        }

        /// The caller gives up waiting; `false` when the writer took the job already (it runs to its end).
        func abandon() -> Bool {
            turn.withLockedValue { turn in
                guard turn == .waiting else { return false }
                turn = .abandoned
                return true
            }
        }

        private enum JobState {
            case queued
            case waiting(CheckedContinuation<Result<any Sendable, any Error>, Never>)
            case finished(Result<any Sendable, any Error>)
        }

        init(body: @escaping @Sendable (any SQLDatabase) async throws -> any Sendable) {
            self.body = body
        }

        func finish(_ result: Result<any Sendable, any Error>) {
            let waiting = state.withLockedValue { state -> CheckedContinuation<Result<any Sendable, any Error>, Never>? in
                defer { state = .finished(result) }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            waiting?.resume(returning: result)
        }

        func result() async -> Result<any Sendable, any Error> {
            await withCheckedContinuation { continuation in
                let finished = state.withLockedValue { state -> Result<any Sendable, any Error>? in
                    if case .finished(let result) = state { return result }
                    state = .waiting(continuation)
                    return nil
                }
                if let finished { continuation.resume(returning: finished) }
            }
        }
    }

    private struct Queue {
        var jobs: [Job] = []
        /// The writer task, parked while there is nothing to write.
        var idleWriter: CheckedContinuation<Void, Never>?
        var isClosed = false
        var sharedCommits = 0
    }

    /// How many bodies so far were committed together with others (for tests and diagnostics).
    package var bodiesInSharedCommits: Int { queue.withLockedValue(\.sharedCommits) }

    private let queue = NIOLockedValueBox(Queue())
    private let sql: SQLiteHandleDatabase
    private var connection: SQLiteConnectionHandle { sql.handle }
    private let begin: @Sendable () async throws -> Void
    private let committed: @Sendable () -> Void
    private let thread = SQLiteWriterThread()
    private let writer = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// How long a caller waits for the writer to take its body before it fails as ``DatabaseError/unavailable(waited:)``.
    private let wait: Duration?
    /// Gives up the jobs that waited too long, a few times per `wait`: one timer for the queue rather than one per job,
    /// which cost the writer's loop a timer to set and cancel for every transaction.
    private let watchdog = NIOLockedValueBox<RepeatedTask?>(nil)
    /// Told of every batch that held the writer longer than ``slowBatch``: how long, and how many bodies it ran.
    private let slow: @Sendable (Duration, Int) -> Void
    /// A batch's commonly a millisecond; one that held the writer this long kept every other write waiting.
    package static let slowBatch: Duration = .seconds(1)

    /// - Parameters:
    ///   - wait: how long a body may wait for its turn; `nil` waits as long as it takes.
    ///   - begin: starts a write transaction on `sql`'s connection (waiting for other processes as needed).
    ///   - committed: called after each commit.
    package init(
        sql: SQLiteHandleDatabase, wait: Duration? = nil, begin: @escaping @Sendable () async throws -> Void,
        committed: @escaping @Sendable () -> Void = {}, slow: @escaping @Sendable (Duration, Int) -> Void = { _, _ in }
    ) {
        self.sql = sql
        self.wait = wait
        self.slow = slow
        self.begin = begin
        self.committed = committed
        let writer = Task(executorPreference: thread) { [self] in await runWriter() }
        self.writer.withLockedValue { $0 = writer }
        if let wait {
            let every = TimeAmount.nanoseconds(
                max(Int64(wait.components.seconds) * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000, 40_000_000) / 4)
            let task = MultiThreadedEventLoopGroup.singleton.next().scheduleRepeatedTask(initialDelay: every, delay: every) { [weak self] _ in
                self?.abandonOverdue(after: wait)
            }
            watchdog.withLockedValue { $0 = task }
        }
    }

    /// Fails the queued jobs that have waited longer than `wait` for the writer: their callers hear at once, and the
    /// writer never runs them.
    private func abandonOverdue(after wait: Duration) {
        let now = ContinuousClock.now
        let overdue = queue.withLockedValue { queue -> [Job] in
            guard let first = queue.jobs.first, now - first.queuedAt > wait else { return [] }
            let late = queue.jobs.filter { now - $0.queuedAt > wait }
            queue.jobs.removeAll { now - $0.queuedAt > wait }
            return late
        }
        for job in overdue where job.abandon() { job.finish(.failure(DatabaseError.unavailable(waited: wait))) }
    }

    /// Runs `body` in a transaction: everything it writes is committed before it returns, or nothing is.
    package func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        let job = Job(body: { try await body($0) })
        let (accepted, idleWriter) = queue.withLockedValue { queue -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !queue.isClosed else { return (false, nil) }
            queue.jobs.append(job)
            defer { queue.idleWriter = nil }
            return (true, queue.idleWriter)
        }
        guard accepted else { throw DatabaseError.closed }
        idleWriter?.resume()
        // The body produced a T; the queue only carried it type-erased.
        guard let value = try await job.result().get() as? T else { preconditionFailure("a job's result has its body's type") }
        return value
    }

    /// Finishes the queued transactions, then ends the writer task and its thread; later transactions fail.
    package func close() async {
        watchdog.withLockedValue { $0 }?.cancel()
        let idleWriter = queue.withLockedValue { queue -> CheckedContinuation<Void, Never>? in
            queue.isClosed = true
            defer { queue.idleWriter = nil }
            return queue.idleWriter
        }
        idleWriter?.resume()
        await writer.withLockedValue { $0 }?.value
        await thread.shutdown()
    }

    /// The writer task: runs whatever is queued as one batch, again and again, parking when the queue is empty.
    private func runWriter() async {
        while true {
            let queued = await nextBatch()
            guard !queued.isEmpty else { return }
            // Those whose callers gave up waiting are dropped: nobody would hear what they did.
            let batch = queued.filter { $0.take() }
            guard !batch.isEmpty else { continue }
            let started = ContinuousClock.now
            let results = await run(batch)
            let held = ContinuousClock.now - started
            if held > Self.slowBatch { slow(held, batch.count) }
            for (job, result) in zip(batch, results) { job.finish(result) }
        }
    }

    /// The queued bodies, waiting for some when there are none; empty once the queue is closed and drained.
    private func nextBatch() async -> [Job] {
        while true {
            enum Next { case batch([Job]), closed, park }
            let next = queue.withLockedValue { queue -> Next in
                if !queue.jobs.isEmpty {
                    defer { queue.jobs.removeAll() }
                    if queue.jobs.count > 1 { queue.sharedCommits += queue.jobs.count }
                    return .batch(queue.jobs)
                }
                return queue.isClosed ? .closed : .park
            }
            switch next {
            case .batch(let jobs): return jobs
            case .closed: return []
            case .park:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = queue.withLockedValue { queue -> Bool in
                        guard queue.jobs.isEmpty, !queue.isClosed else { return true }
                        queue.idleWriter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
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
