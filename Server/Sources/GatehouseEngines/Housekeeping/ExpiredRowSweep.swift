import GatehouseDomain
import GatehouseFoundation
import SQLKit

/// Deletes rows nothing can use any more — expired flows, codes, sessions, tokens, revocation records, QR sign-ins,
/// pending device registrations, quiet attempt counters, old courier messages and audit events — so that a busy
/// server's database levels off. Each table is swept in batches of ``batchSize`` rows, one short
/// transaction per batch, so a sweep never holds the SQLite writer (or PostgreSQL row locks) for longer than one
/// batch. On PostgreSQL one node sweeps at a time: a node that finds the sweep lock taken skips the batch.
public struct ExpiredRowSweep: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// How long a redeemed authorization code is kept to recognize its replay, in seconds.
    package let replayWindow: Int64
    /// How long a browser session lives without use, in seconds.
    package let sessionIdle: Int64
    /// How many days audit events are kept.
    package let auditRetentionDays: Int
    /// Rows deleted per transaction.
    package let batchSize: Int

    /// A sweep of `database` at `clock`'s time, `batchSize` rows per transaction, keeping redeemed codes for
    /// `replayWindow` seconds, idle sessions for `sessionIdle` seconds and audit events for `auditRetentionDays`.
    public init(
        database: any Database, clock: UnixClock = .system, replayWindow: Int64, sessionIdle: Int64, auditRetentionDays: Int, batchSize: Int = 500
    ) {
        self.database = database
        self.clock = clock
        self.replayWindow = replayWindow
        self.sessionIdle = sessionIdle
        self.auditRetentionDays = auditRetentionDays
        self.batchSize = batchSize
    }

    /// The rules at `now`, as each table's store declares them.
    package func rules(at now: Int64) -> [RetentionRule] {
        [
            FlowStore.retention(at: now),
            AuthorizationCodeStore.retention(at: now, replayWindow: replayWindow),
            BrowserSessionStore.retention(at: now, idle: sessionIdle),
            LogoutNotificationQueue.retention(),
        ] + TokenStore.retention(at: now) + [
            GrantRevocations.retention(at: now),
            OneTimeCodeStore.retention(at: now),
            AppLoginStore.retention(at: now),
            DeviceAuthorizationStore.retention(at: now),
            DPoPProofLog.retention(at: now),
            PushedAuthorizationRequestStore.retention(at: now),
            DeviceIdentityStore.retention(at: now),
            AttemptLimiter.retention(at: now),
            CourierQueue.retention(at: now),
            AuditLog.retention(at: now, retentionDays: auditRetentionDays),
            WriteProbe.retention(at: now),
            ClientRegistrationStore.retention(at: now),
            InitialAccessTokenStore.retention(at: now),
        ]
    }

    /// What one pass deleted, by table.
    public struct Outcome: Sendable, Equatable {
        /// Rows deleted, by table (tables with none left out).
        public var deleted: [String: Int] = [:]
        /// Whether another node held the sweep and this one stood aside.
        public var skipped = false
        /// Whether the pass stopped at its batch limit with rows still due: the next pass should follow soon.
        public var unfinished = false
        /// Rows deleted in all.
        public var total: Int { deleted.values.reduce(0, +) }
    }

    /// Sweeps every table until nothing more is due, or `maxBatches` batches ran.
    public func run(maxBatches: Int = 1_000) async throws -> Outcome {
        var outcome = Outcome()
        var batches = 0
        for rule in rules(at: clock.now()) {
            while true {
                guard batches < maxBatches else {
                    outcome.unfinished = true
                    return outcome
                }
                batches += 1
                guard let deleted = try await batch(rule) else {
                    outcome.skipped = true
                    return outcome
                }
                if deleted > 0 { outcome.deleted[rule.table, default: 0] += deleted }
                if deleted < batchSize { break }
            }
        }
        return outcome
    }

    /// Deletes up to ``batchSize`` rows of `rule`'s table; `nil` when another node holds the sweep.
    package func batch(_ rule: RetentionRule) async throws -> Int? {
        let limit = batchSize
        return try await database.transaction { [database] sql in
            guard try await database.tryLock(.expiredRowSweep, in: sql) else { return nil }
            return try await sql.raw(
                """
                DELETE FROM \(unsafeRaw: rule.table) WHERE (\(unsafeRaw: rule.key)) IN (
                    SELECT \(unsafeRaw: rule.key) FROM \(unsafeRaw: rule.table) WHERE \(rule.condition) LIMIT \(unsafeRaw: String(limit)))
                RETURNING \(unsafeRaw: rule.key)
                """
            ).all().count
        }
    }
}
