import SQLKit

/// Deletes rows nothing can use any more — expired flows, codes, sessions, tokens, revocation records, QR sign-ins,
/// pending device registrations, quiet attempt counters, old courier messages and audit events — so that a busy
/// server's database levels off. Each table is swept in batches of ``batchSize`` rows, one short
/// transaction per batch, so a sweep never holds the SQLite writer (or PostgreSQL row locks) for longer than one
/// batch. On PostgreSQL one node sweeps at a time: a node that finds the sweep lock taken skips the batch.
public struct ExpiredRowSweep: Sendable {
    let database: any Database
    let clock: UnixClock
    let configuration: ServerConfiguration
    /// Rows deleted per transaction.
    let batchSize: Int

    /// A sweep of `database` by `configuration`'s lifetimes and retention, at `clock`'s time, `batchSize` rows per
    /// transaction.
    public init(database: any Database, clock: UnixClock = .system, configuration: ServerConfiguration, batchSize: Int = 500) {
        self.database = database
        self.clock = clock
        self.configuration = configuration
        self.batchSize = batchSize
    }

    /// Courier messages sent or failed are kept this long for operators (`gatehouse outbox`).
    static let deliveredMessageDays: Int64 = 14
    /// An attempt counter with no attempt for this long is forgotten (its escalation too).
    static let quietCounterDays: Int64 = 30

    /// One table's rule: which rows may go, and the columns that name a row.
    struct Rule: Sendable {
        let table: String
        let key: String
        let condition: SQLQueryString
    }

    /// The rules at `now`. An authorization code lingers past expiry (`housekeeping.replay_window`): presenting a used
    /// one again revokes what it issued. One-time codes keep a day for their attempt history; QR sign-ins and device
    /// authorizations an hour, so whoever still polls them is told they expired.
    func rules(at now: Int64) -> [Rule] {
        let day: Int64 = 86_400
        let idle = configuration.tokens.sessionIdle
        let replayWindow = configuration.housekeeping.replayWindow
        let auditCutoff = now - Int64(configuration.audit.retentionDays) * day
        return [
            Rule(table: "flows", key: "id_hash", condition: "expires_at <= \(bind: now)"),
            Rule(table: "authorization_codes", key: "code_hash", condition: "expires_at <= \(bind: now - replayWindow)"),
            Rule(table: "browser_sessions", key: "id_hash", condition: "expires_at <= \(bind: now) OR last_seen_at <= \(bind: now - idle)"),
            Rule(table: "access_tokens", key: "token_hash", condition: "expires_at <= \(bind: now)"),
            // A used refresh token is kept until it expires: presenting it again until then revokes its family.
            Rule(table: "refresh_tokens", key: "token_hash", condition: "expires_at <= \(bind: now)"),
            Rule(table: "revoked_grants", key: "grant_id", condition: "expires_at <= \(bind: now)"),
            Rule(table: "one_time_codes", key: "id", condition: "expires_at <= \(bind: now - day)"),
            Rule(table: "app_logins", key: "id", condition: "expires_at <= \(bind: now - 3600)"),
            Rule(table: "device_authorizations", key: "id", condition: "expires_at <= \(bind: now - 3600)"),
            Rule(table: "dpop_proofs", key: "proof_hash", condition: "expires_at <= \(bind: now)"),
            Rule(table: "pushed_authorization_requests", key: "request_uri_hash", condition: "expires_at <= \(bind: now)"),
            Rule(table: "device_identities", key: "id", condition: "expires_at IS NOT NULL AND expires_at <= \(bind: now)"),
            Rule(
                table: "attempt_counters", key: "scope, subject_hash",
                condition: "last_attempt_at <= \(bind: now - Self.quietCounterDays * day) AND blocked_until <= \(bind: now)"),
            Rule(
                table: "courier_messages", key: "id",
                condition: "status IN ('sent', 'failed') AND created_at <= \(bind: now - Self.deliveredMessageDays * day)"),
            Rule(table: "audit_events", key: "id", condition: "occurred_at < \(bind: auditCutoff)"),
            // A node gone for a day.
            Rule(table: "write_probe", key: "node", condition: "written_at <= \(bind: now - day)"),
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
    func batch(_ rule: Rule) async throws -> Int? {
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
