import Logging
import Metrics
import ServiceLifecycle

/// Runs beside the HTTP server: sweeps expired rows (``ExpiredRowSweep``) shortly after start and then every
/// `housekeeping.interval`; a pass that stopped at its batch limit is followed by the next one a second later, so a
/// busy server's sweep keeps up. Rows deleted are counted in `gatehouse_swept_rows_total` by table.
public struct ExpiredRowSweepService: Service {
    let server: IdentityServer

    /// A service that sweeps `server`'s database as its configuration's `housekeeping` says.
    public init(server: IdentityServer) {
        self.server = server
    }

    public func run() async throws {
        let sweep = ExpiredRowSweep(database: server.database, clock: server.clock, configuration: server.configuration)
        let interval = server.configuration.housekeeping.interval
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
                        server.logger.info(
                            "Swept expired rows", metadata: ["count": "\(outcome.total)", "tables": "\(outcome.deleted.keys.sorted().joined(separator: ","))"])
                    }
                    if outcome.unfinished { pause = .seconds(1) }
                } catch {
                    server.logger.warning("Sweeping expired rows failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: pause)
            }
        }
    }
}
