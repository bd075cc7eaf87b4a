import Foundation
import GatehouseFoundation
import SQLKit

/// Personal admin tokens (`gatehouse admin-tokens`): bearer tokens for the admin API, shown once, kept as digests,
/// read-only or not, expiring, revocable.
public struct AdminTokenStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// What every admin token starts with, so a leaked one is recognisable (and secret scanners can find it).
    package static let prefix = "gha_"

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// An admin token as listed: never the token.
    public struct Record: Sendable, Codable, Equatable {
        public var id: String
        public var name: String
        public var readOnly: Bool
        public var createdAt: Int64
        public var expiresAt: Int64
        public var revokedAt: Int64?
        public var lastUsedAt: Int64?

        package enum CodingKeys: String, CodingKey {
            case id, name
            case readOnly = "read_only"
            case createdAt = "created_at"
            case expiresAt = "expires_at"
            case revokedAt = "revoked_at"
            case lastUsedAt = "last_used_at"
        }
    }

    /// Creates a token named `name`, valid `lifetime` seconds; returns it (the only time it is seen) and its record.
    public func create(name: String, readOnly: Bool, lifetime: Int64) async throws -> (token: String, record: Record) {
        let token = Self.prefix + SecureRandom.token()
        let now = clock.now()
        let record = Record(
            id: UUID().uuidString.lowercased(), name: name, readOnly: readOnly, createdAt: now, expiresAt: now + lifetime, revokedAt: nil, lastUsedAt: nil)
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO admin_tokens (id, name, token_hash, read_only, created_at, expires_at)
                VALUES (\(bind: record.id), \(bind: name), \(bind: TokenDigest.hex(token)), \(bind: readOnly ? 1 : 0), \(bind: now), \(bind: record.expiresAt))
                """
            ).run()
        }
        return (token, record)
    }

    /// The active token `token` is, noting its use; `nil` when unknown, expired or revoked.
    package func verify(_ token: String) async throws -> Record? {
        guard token.hasPrefix(Self.prefix), token.utf8.count <= 128 else { return nil }
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE admin_tokens SET last_used_at = \(bind: now)
                WHERE token_hash = \(bind: TokenDigest.hex(token)) AND revoked_at IS NULL AND expires_at > \(bind: now) RETURNING *
                """
            ).first().map(Self.decode)
        }
    }

    public func list() async throws -> [Record] {
        try await database.read { sql in try await sql.raw("SELECT * FROM admin_tokens ORDER BY created_at, id").all().map(Self.decode) }
    }

    /// Revokes the token with `id`; `false` when there is no such active token.
    public func revoke(id: String) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw("UPDATE admin_tokens SET revoked_at = \(bind: now) WHERE id = \(bind: id) AND revoked_at IS NULL RETURNING id").first() != nil
        }
    }

    package static func decode(_ row: any SQLRow) throws -> Record {
        Record(
            id: try row.decode(column: "id", as: String.self), name: try row.decode(column: "name", as: String.self),
            readOnly: try row.decode(column: "read_only", as: Int.self) != 0, createdAt: try row.decode(column: "created_at", as: Int64.self),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self), revokedAt: try row.decode(column: "revoked_at", as: Int64?.self),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self))
    }
}
