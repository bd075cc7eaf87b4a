import Logging
import Metrics
import ServiceLifecycle

/// Runs beside the HTTP server: sweeps expired rows (``ExpiredRowSweep``) shortly after start and then every
/// `housekeeping.interval`; a pass that stopped at its batch limit is followed by the next one a second later, so a
/// busy server's sweep keeps up. Rows deleted are counted in `gatehouse_swept_rows_total` by table.
public struct ExpiredRowSweepService: Service {
    package let sweep: ExpiredRowSweep
    /// Seconds between passes.
    package let interval: Int64
    package let logger: Logger

    /// A service that runs `sweep` every `interval` seconds, logging what it deleted to `logger`.
    public init(sweep: ExpiredRowSweep, interval: Int64, logger: Logger) {
        self.sweep = sweep
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            // Not at the very start: nodes started together need not all try at once.
            try await Task.sleep(for: .seconds(min(Int64.random(in: 5...30), interval)))
            while !Task.isCancelled {
                var pause = Duration.seconds(interval)
                do {
                    let outcome = try await sweep.run()
                    for (table, count) in outcome.deleted {
                        Counter(label: "gatehouse_swept_rows_total", dimensions: [("table", table)]).increment(by: count)
                    }
                    if outcome.total > 0 {
                        logger.info(
                            "Swept expired rows", metadata: ["count": "\(outcome.total)", "tables": "\(outcome.deleted.keys.sorted().joined(separator: ","))"])
                    }
                    if outcome.unfinished { pause = .seconds(1) }
                } catch {
                    logger.warning("Sweeping expired rows failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: pause)
            }
        }
    }
}
