import Logging
import Metrics
import ServiceLifecycle

/// Runs beside the HTTP server: sweeps expired rows (``ExpiredRowSweep``) shortly after start and then every
/// `interval`. Rows deleted are counted in `gatehouse_swept_rows_total` by table.
public struct ExpiredRowSweepService: Service {
    let server: IdentityServer
    let interval: Duration

    /// A service that sweeps `server`'s database every `interval` (ten minutes by default).
    public init(server: IdentityServer, interval: Duration = .seconds(600)) {
        self.server = server
        self.interval = interval
    }

    public func run() async throws {
        let sweep = ExpiredRowSweep(database: server.database, clock: server.clock, configuration: server.configuration)
        try? await cancelWhenGracefulShutdown {
            // Not at the very start: nodes started together need not all try at once.
            try await Task.sleep(for: .seconds(Int.random(in: 5...30)))
            while !Task.isCancelled {
                do {
                    let outcome = try await sweep.run()
                    for (table, count) in outcome.deleted {
                        Counter(label: "gatehouse_swept_rows_total", dimensions: [("table", table)]).increment(by: count)
                    }
                    if outcome.total > 0 {
                        server.logger.info(
                            "Swept expired rows", metadata: ["count": "\(outcome.total)", "tables": "\(outcome.deleted.keys.sorted().joined(separator: ","))"])
                    }
                } catch {
                    server.logger.warning("Sweeping expired rows failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
