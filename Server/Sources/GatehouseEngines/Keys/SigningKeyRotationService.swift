import GatehouseDomain
import GatehouseFoundation
import Logging
import ServiceLifecycle

/// Runs beside the HTTP server when `keys.rotate_every` is set: turns the rotation schedule
/// (``SigningKeyStore/rotateOnSchedule(secret:rotateEvery:publishAhead:publishFor:recording:)``) a few times per
/// `publish_ahead`, records what it changed in the audit trail, and has this node's ring load the change at once.
public struct SigningKeyRotationService: Service {
    package let store: SigningKeyStore
    package let ring: SigningKeyRing
    package let audit: AuditLog
    package let secret: ServerSecret
    package let policy: SigningKeyPolicy
    /// Seconds a retired key stays published.
    package let publishFor: Int64
    package let logger: Logger

    package init(
        store: SigningKeyStore, ring: SigningKeyRing, audit: AuditLog, secret: ServerSecret, policy: SigningKeyPolicy, publishFor: Int64,
        logger: Logger
    ) {
        self.store = store
        self.ring = ring
        self.audit = audit
        self.secret = secret
        self.policy = policy
        self.publishFor = publishFor
        self.logger = logger
    }

    /// One turn: what changed, already recorded.
    @discardableResult
    package func turn() async throws -> SigningKeyStore.ScheduledChanges {
        guard let rotateEvery = policy.rotateEvery else { return .none }
        let audit = self.audit
        let changes = try await store.rotateOnSchedule(
            secret: secret, rotateEvery: rotateEvery, publishAhead: policy.publishAhead, publishFor: publishFor
        ) { changes in
            for (next, retires) in changes.scheduled {
                try await audit.record(
                    .keyScheduled, actor: "system",
                    details: ["kid": next.kid, "algorithm": next.algorithm, "activates_at": String(next.activatesAt), "retires": retires])
            }
            for kid in changes.removed { try await audit.record(.keyRemoved, actor: "system", details: ["kid": kid]) }
        }
        if !changes.isEmpty { try await ring.reloadNow() }
        for (next, retires) in changes.scheduled {
            logger.info(
                "Scheduled the next signing key",
                metadata: ["kid": "\(next.kid)", "algorithm": "\(next.algorithm)", "activates_at": "\(next.activatesAt)", "retires": "\(retires)"])
        }
        return changes
    }

    public func run() async throws {
        // A service that returned would stop the server's group: without a schedule, this one waits for the shutdown.
        guard policy.rotateEvery != nil else { return try await gracefulShutdown() }
        let pause = Duration.seconds(policy.reloadInterval)
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await turn()
                } catch {
                    logger.warning("Turning the signing key schedule failed", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: pause)
            }
        }
    }
}
