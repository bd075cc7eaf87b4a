import Logging
import ServiceLifecycle

/// Runs beside the HTTP server: deletes audit events older than the retention once at start and every hour. Any
/// node may sweep; a sweep is one statement, so nodes sweeping together only repeat each other's work.
public struct AuditSweepService: Service {
    let server: IdentityServer
    let interval: Duration

    /// A service that sweeps `server`'s audit trail every `interval`.
    public init(server: IdentityServer, interval: Duration = .seconds(3600)) {
        self.server = server
        self.interval = interval
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let swept = try await server.audit.sweep(olderThanDays: server.configuration.audit.retentionDays)
                    if swept > 0 { server.logger.info("Swept old audit events", metadata: ["count": "\(swept)"]) }
                } catch {
                    server.logger.warning("Sweeping old audit events failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
