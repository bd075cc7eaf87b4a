import Foundation
import GatehouseFoundation
import SQLKit

/// Initial access tokens (RFC 7591 §3): bearer tokens an operator hands to a developer so that their client may
/// register itself at `/register`. Shown once, kept as digests, expiring, limited in uses when asked, revocable.
public struct InitialAccessTokenStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// What every initial access token starts with, so a leaked one is recognisable.
    package static let prefix = "ghr_"

    /// The tokens of `database`, at `clock`'s time.
    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// An initial access token as listed: never the token.
    public struct Record: Sendable, Codable, Equatable {
        /// Its identifier, for revoking it.
        public var id: String
        /// What the operator called it (who it was given to).
        public var name: String
        public var createdAt: Int64
        public var expiresAt: Int64
        public var revokedAt: Int64?
        /// How many registrations it allows; `nil` for any number until it expires.
        public var maxUses: Int?
        /// How many registrations it made.
        public var uses: Int
        public var lastUsedAt: Int64?

        package enum CodingKeys: String, CodingKey {
            case id, name, uses
            case createdAt = "created_at"
            case expiresAt = "expires_at"
            case revokedAt = "revoked_at"
            case maxUses = "max_uses"
            case lastUsedAt = "last_used_at"
        }
    }

    /// Creates a token named `name`, valid `lifetime` seconds for at most `maxUses` registrations (`nil`: any number);
    /// returns it (the only time it is seen) and its record.
    package func create(name: String, lifetime: Int64, maxUses: Int?, in sql: any SQLDatabase) async throws -> (token: String, record: Record) {
        let token = Self.prefix + SecureRandom.token()
        let now = clock.now()
        let record = Record(
            id: UUID().uuidString.lowercased(), name: name, createdAt: now, expiresAt: now + lifetime, revokedAt: nil, maxUses: maxUses, uses: 0,
            lastUsedAt: nil)
        try await sql.raw(
            """
            INSERT INTO initial_access_tokens (id, name, token_hash, created_at, expires_at, max_uses)
            VALUES (\(bind: record.id), \(bind: name), \(bind: TokenDigest.hex(token)), \(bind: now), \(bind: record.expiresAt), \(bind: maxUses))
            """
        ).run()
        return (token, record)
    }

    /// Uses `token` for one registration, inside the registration's transaction: its record, or `nil` when it is
    /// unknown, expired, revoked or used up (then nothing is counted).
    package func use(_ token: String, in sql: any SQLDatabase) async throws -> Record? {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 128 else { return nil }
        let now = clock.now()
        return try await sql.raw(
            """
            UPDATE initial_access_tokens SET uses = uses + 1, last_used_at = \(bind: now)
            WHERE token_hash = \(bind: TokenDigest.hex(token)) AND revoked_at IS NULL AND expires_at > \(bind: now)
              AND (max_uses IS NULL OR uses < max_uses)
            RETURNING *
            """
        ).first().map(Self.decode)
    }

    /// Every token, oldest first.
    public func list() async throws -> [Record] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM initial_access_tokens ORDER BY created_at, id").all().map(Self.decode)
        }
    }

    /// Revokes the token `id`, inside a transaction already open; `false` when there is no such active token.
    package func revoke(id: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            "UPDATE initial_access_tokens SET revoked_at = \(bind: clock.now()) WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING id"
        ).first() != nil
    }

    package static func decode(_ row: any SQLRow) throws -> Record {
        Record(
            id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self), expiresAt: try row.decode(column: "expires_at", as: Int64.self),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self), maxUses: try row.decode(column: "max_uses", as: Int?.self),
            uses: try row.decode(column: "uses", as: Int.self), lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self))
    }
}

extension InitialAccessTokenStore {
    /// Tokens expired or revoked a week ago go; until then they are listed, so an operator sees what was handed out.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(
            table: "initial_access_tokens", key: "id",
            condition: "(expires_at <= \(bind: now - 7 * 86_400) OR revoked_at <= \(bind: now - 7 * 86_400))")
    }
}
