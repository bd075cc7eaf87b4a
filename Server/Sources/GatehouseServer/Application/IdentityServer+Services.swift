import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import Logging
import Prometheus
import ServiceLifecycle

/// The services that run beside the HTTP server, each given what it uses from the configuration read at start and
/// the server's parts: here, where the application is put together, and nowhere else.
extension IdentityServer {
    /// Housekeeping: expired rows swept every `housekeeping.interval`.
    public func housekeepingService() -> ExpiredRowSweepService {
        ExpiredRowSweepService(
            sweep: ExpiredRowSweep(database: database, clock: clock, configuration: configuration), interval: configuration.housekeeping.interval,
            logger: logger)
    }

    /// Signing keys that rotate on `keys.rotate_every` (serve runs it only when that is set).
    public func keyRotationService() -> SigningKeyRotationService {
        SigningKeyRotationService(
            store: keyStore, ring: keys, audit: audit, secret: secret, policy: configuration.keys,
            publishFor: configuration.tokens.retiredKeyPublication, logger: logger)
    }

    /// Back-channel logout: the clients a person signed in to are told when they sign out, from any node.
    public func backChannelLogoutService() -> BackChannelLogoutService {
        BackChannelLogoutService(delivery: backChannelLogout)
    }

    /// The audit trail sent on to `audit.webhook` and to the hooks at `events`; `nil` when there is neither.
    public func eventDeliveryService() -> EventDeliveryService? {
        let channels: [any EventChannel] =
            (configuration.audit.webhook.map { [AuditWebhookChannel(webhook: $0)] } ?? [])
            + EventHook.all(configuration.hooks, caller: HookCaller(clock: clock, logger: logger))
        guard !channels.isEmpty else { return nil }
        return EventDeliveryService(database: database, audit: audit, clock: clock, logger: logger, channels: channels)
    }

    /// The metrics listener on `metrics.host` and `metrics.port`, exposing `registry`, and the admin console when it is
    /// served there (`admin_console.listener`).
    public func metricsService(registry: PrometheusCollectorRegistry, logger: Logger) -> some Service {
        let gauges = ScrapeGauges(database: database, hasher: hasher, courierQueue: courier.queue, clock: clock, logger: self.logger)
        return PrometheusEndpoint.application(
            registry: registry, policy: configuration.metrics, gauges: gauges, logger: logger,
            alsoServing: GatehouseApplication.makeConsoleRoutes(server: self))
    }
}

extension ExpiredRowSweep {
    /// The sweep `configuration` asks for: redeemed codes kept for `housekeeping.replay_window`, idle sessions for
    /// `token_lifetimes.session_idle`, audit events for `audit.retention_days`.
    public init(database: any Database, clock: UnixClock = .system, configuration: ServerConfiguration, batchSize: Int = 500) {
        self.init(
            database: database, clock: clock, replayWindow: configuration.housekeeping.replayWindow, sessionIdle: configuration.tokens.sessionIdle,
            auditRetentionDays: configuration.audit.retentionDays, batchSize: batchSize)
    }
}
