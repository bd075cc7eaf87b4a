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
        let missing = SigningKeyFactory.algorithms.filter { algorithm in !existing.contains { $0.algorithm == algorithm && $0.isActive } }
        guard !missing.isEmpty else { return }
        let records = try missing.map { try SigningKeyFactory.generate(algorithm: $0, box: box, now: now) }
        let database = self.database
        try await database.transaction { sql in
            try await database.lock(.signingKeys, in: sql)
            for record in records {
                let active = try await sql.raw(
                    """
                    SELECT kid FROM signing_keys WHERE algorithm = \(bind: record.algorithm) AND retired_at IS NULL
                    """
                ).first()
                if active == nil { try await Self.insert(record, in: sql) }
            }
        }
    }

    /// Retires the active keys and creates new ones. Retired keys stay published for `publishFor` seconds,
    /// the longest lifetime of a token they signed; keys whose publication ended are deleted. `recording` runs in the
    /// same transaction (the change's audit event).
    ///
    /// The keys are generated before the transaction: RSA key generation takes a tenth of a second or more, and inside
    /// a transaction it would hold SQLite's writer — every other write of the server — as long.
    /// - Returns: the new active keys.
    public func rotate(
        secret: ServerSecret, publishFor: Int64, recording: @escaping @Sendable ([SigningKeyRecord]) async throws -> Void = { _ in }
    ) async throws -> [SigningKeyRecord] {
        assert(!TransactionScope.isHoldingWriter, "Keys are generated before the rotation's transaction, never inside another one.")
        let box = SecretBox(serverSecret: secret.bytes, purpose: SecretBox.signingKeysPurpose)
        let now = clock.now()
        let records = try SigningKeyFactory.algorithms.map { try SigningKeyFactory.generate(algorithm: $0, box: box, now: now) }
        let database = self.database
        try await database.transaction { sql in
            try await database.lock(.signingKeys, in: sql)
            try await sql.raw("DELETE FROM signing_keys WHERE retired_at IS NOT NULL AND published_until <= \(bind: now)").run()
            try await sql.raw(
                """
                UPDATE signing_keys SET retired_at = \(bind: now), published_until = \(bind: now + publishFor) WHERE retired_at IS NULL
                """
            ).run()
            for record in records { try await Self.insert(record, in: sql) }
            try await recording(records)
        }
        return records
    }

    private static func insert(_ record: SigningKeyRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO signing_keys (kid, algorithm, public_jwk, sealed_private_key, created_at, retired_at, published_until)
            VALUES (\(bind: record.kid), \(bind: record.algorithm), \(bind: record.publicJWK), \(bind: record.sealedPrivateKey),
                    \(bind: record.createdAt), \(bind: record.retiredAt), \(bind: record.publishedUntil))
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
            retiredAt: try row.decode(column: "retired_at", as: Int64?.self),
            publishedUntil: try row.decode(column: "published_until", as: Int64?.self)
        )
    }
}

extension SecretBox {
    /// What the signing keys' private halves are sealed for: a box for another purpose cannot open them.
    package static let signingKeysPurpose = "signing keys v1"
}
