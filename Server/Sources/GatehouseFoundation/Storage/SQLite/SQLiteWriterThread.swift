import NIOCore
import NIOPosix

/// A thread of its own for SQLite's writer, as a task executor.
///
/// The writer task runs with this executor as its preference (SE-0417), so it and the nonisolated async code
/// it calls (the transaction bodies, SQLKit) run here. Resumed, it starts at once instead of queueing
/// behind every request handler in the cooperative pool: measured under load, that queue kept the writer
/// idle for milliseconds between batches, more than half the time.
package final class SQLiteWriterThread: TaskExecutor {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let loop: any EventLoop

    package init() {
        loop = group.next()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Ends the thread once its queued work is done.
    package func shutdown() async {
        try? await group.shutdownGracefully()
    }
}
