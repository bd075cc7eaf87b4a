import GatehouseFoundation
import SQLKit

/// Signing keys in the database.
public struct SigningKeyStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    public func all() async throws -> [SigningKeyRecord] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM signing_keys ORDER BY created_at DESC, kid").all().map(Self.decode)
        }
    }

    /// Creates an active key for each algorithm that has none. Safe to call on every start.
    package func ensureActiveKeys(box: SecretBox) async throws {
        let now = clock.now()
        // Generate outside the transaction: RSA key generation takes a while.
        let existing = try await all()
        let missing = SigningKeyFactory.algorithms.filter { algorithm in !existing.contains { $0.algorithm == algorithm && $0.signs(after: now) } }
        guard !missing.isEmpty else { return }
        let records = try missing.map { try SigningKeyFactory.generate(algorithm: $0, box: box, now: now) }
        let database = self.database
        try await database.transaction { sql in
            try await database.lock(.signingKeys, in: sql)
            for record in records {
                let signing = try await sql.raw(
                    """
                    SELECT kid FROM signing_keys
                    WHERE algorithm = \(bind: record.algorithm) AND (retired_at IS NULL OR retired_at > \(bind: now))
                    """
                ).first()
                if signing == nil { try await Self.insert(record, in: sql) }
            }
        }
    }

    /// Retires the active keys and creates new ones that sign at once: for a key that must stop signing now. Retired
    /// keys stay published for `publishFor` seconds, the longest lifetime of a token they signed; keys whose publication
    /// ended are deleted, and so are keys the schedule made ahead that never signed. `recording` runs in the same
    /// transaction (the change's audit event).
    ///
    /// The keys are generated before the transaction: RSA key generation takes a tenth of a second or more, and inside
    /// a transaction it would hold SQLite's writer — every other write of the server — as long.
    /// - Returns: the new active keys.
    public func rotate(
        secret: ServerSecret, publishFor: Int64, recording: @escaping @Sendable ([SigningKeyRecord]) async throws -> Void = { _ in }
    ) async throws -> [SigningKeyRecord] {
        Invariant.check(!TransactionScope.isHoldingWriter, "Keys are generated before the rotation's transaction, never inside another one.")
        let box = SecretBox(serverSecret: secret.bytes, purpose: SecretBox.signingKeysPurpose)
        let now = clock.now()
        let records = try SigningKeyFactory.algorithms.map { try SigningKeyFactory.generate(algorithm: $0, box: box, now: now) }
        let database = self.database
        try await database.transaction { sql in
            try await database.lock(.signingKeys, in: sql)
            try await sql.raw("DELETE FROM signing_keys WHERE retired_at IS NOT NULL AND published_until <= \(bind: now)").run()
            try await sql.raw("DELETE FROM signing_keys WHERE activates_at > \(bind: now)").run()
            try await sql.raw(
                """
                UPDATE signing_keys SET retired_at = \(bind: now), published_until = \(bind: now + publishFor)
                WHERE retired_at IS NULL OR retired_at > \(bind: now)
                """
            ).run()
            for record in records { try await Self.insert(record, in: sql) }
            try await recording(records)
        }
        return records
    }

    /// What one turn of the rotation schedule changed.
    public struct ScheduledChanges: Sendable {
        /// Keys made ahead: each published now and signing from its `activatesAt`, when the key `retires` stops.
        public var scheduled: [(next: SigningKeyRecord, retires: String)]
        /// Retired keys taken out of the JWKS: every token they signed has expired.
        public var removed: [String]

        public var isEmpty: Bool { scheduled.isEmpty && removed.isEmpty }

        /// Nothing changed.
        package static let none = ScheduledChanges(scheduled: [], removed: [])
    }

    /// One turn of the rotation schedule (`keys.rotate_every`): for each algorithm whose active key has signed for
    /// `rotateEvery` less `publishAhead` seconds and has no successor, a new key is made that signs from
    /// `publishAhead` seconds on (or when the current key's period ends, if later); the current key stops signing then and
    /// stays published `publishFor` seconds more. Retired keys whose publication ended are deleted.
    ///
    /// Every node may run it: the change is made under the signing keys' lock and only where the key read before is still
    /// the one without a successor, so one node schedules each key and the others find nothing to do.
    /// `recording` runs in the same transaction (the changes' audit events).
    public func rotateOnSchedule(
        secret: ServerSecret, rotateEvery: Int64, publishAhead: Int64, publishFor: Int64,
        recording: @escaping @Sendable (ScheduledChanges) async throws -> Void = { _ in }
    ) async throws -> ScheduledChanges {
        Invariant.check(!TransactionScope.isHoldingWriter, "Keys are generated before the schedule's transaction, never inside another one.")
        let now = clock.now()
        let existing = try await all()
        var due: [(current: SigningKeyRecord, activatesAt: Int64)] = []
        for algorithm in SigningKeyFactory.algorithms {
            let keys = existing.filter { $0.algorithm == algorithm }
            guard let current = keys.filter({ $0.isActive(at: now) }).max(by: { $0.activatesAt < $1.activatesAt }), current.retiredAt == nil,
                current.activatesAt + rotateEvery - publishAhead <= now
            else { continue }
            due.append((current, max(now + publishAhead, current.activatesAt + rotateEvery)))
        }
        let expired = existing.filter { !$0.isPublished(at: now) }
        guard !due.isEmpty || !expired.isEmpty else { return .none }
        let box = SecretBox(serverSecret: secret.bytes, purpose: SecretBox.signingKeysPurpose)
        let made = try due.map { current, activatesAt in
            var next = try SigningKeyFactory.generate(algorithm: current.algorithm, box: box, now: now)
            next.activatesAt = activatesAt
            return (next: next, retires: current.kid)
        }
        let database = self.database
        return try await database.transaction { sql in
            try await database.lock(.signingKeys, in: sql)
            var changes = ScheduledChanges.none
            for (next, retires) in made {
                // Another node may have scheduled this successor since the read above: then the current key is retiring.
                let updated = try await sql.raw(
                    """
                    UPDATE signing_keys SET retired_at = \(bind: next.activatesAt), published_until = \(bind: next.activatesAt + publishFor)
                    WHERE kid = \(bind: retires) AND retired_at IS NULL RETURNING kid
                    """
                ).all()
                guard !updated.isEmpty else { continue }
                try await Self.insert(next, in: sql)
                changes.scheduled.append((next, retires))
            }
            changes.removed = try await sql.raw(
                "DELETE FROM signing_keys WHERE retired_at IS NOT NULL AND published_until <= \(bind: now) RETURNING kid"
            ).all().map { try $0.decode(column: "kid", as: String.self) }.sorted()
            if !changes.isEmpty { try await recording(changes) }
            return changes
        }
    }

    /// What ``withdraw(kid:in:)`` found.
    package enum Withdrawal: Sendable {
        /// The retired key left the JWKS.
        case withdrawn
        /// The key signs, or will on the schedule: it must be rotated out first.
        case signing
        /// No published key has that id.
        case unknown
    }

    /// Deletes the retired key `kid` at once, before the tokens it signed expire (a key that leaked), in the caller's
    /// transaction `sql`; a key that signs, or will, stays.
    package func withdraw(kid: String, in sql: any SQLDatabase) async throws -> Withdrawal {
        try await database.lock(.signingKeys, in: sql)
        guard let row = try await sql.raw("SELECT * FROM signing_keys WHERE kid = \(bind: kid)").first() else { return .unknown }
        guard try Self.decode(row).status(at: clock.now()) == .retired else { return .signing }
        try await sql.raw("DELETE FROM signing_keys WHERE kid = \(bind: kid)").run()
        return .withdrawn
    }

    private static func insert(_ record: SigningKeyRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO signing_keys (kid, algorithm, public_jwk, sealed_private_key, created_at, activates_at, retired_at, published_until)
            VALUES (\(bind: record.kid), \(bind: record.algorithm), \(bind: record.publicJWK), \(bind: record.sealedPrivateKey),
                    \(bind: record.createdAt), \(bind: record.activatesAt), \(bind: record.retiredAt), \(bind: record.publishedUntil))
            """
        ).run()
    }

    package static func decode(_ row: any SQLRow) throws -> SigningKeyRecord {
        SigningKeyRecord(
            kid: try row.decode(column: "kid", as: String.self),
            algorithm: try row.decode(column: "algorithm", as: String.self),
            publicJWK: try row.decode(column: "public_jwk", as: String.self),
            sealedPrivateKey: try row.decode(column: "sealed_private_key", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self),
            activatesAt: try row.decode(column: "activates_at", as: Int64?.self),
            retiredAt: try row.decode(column: "retired_at", as: Int64?.self),
            publishedUntil: try row.decode(column: "published_until", as: Int64?.self)
        )
    }
}

extension SecretBox {
    /// What the signing keys' private halves are sealed for: a box for another purpose cannot open them.
    package static let signingKeysPurpose = "signing keys v1"
}
