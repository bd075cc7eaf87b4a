import GatehouseFoundation
import SQLKit

/// Where a user is signed in: browser sessions on the hosted pages, and token grants (a sign-in's token family at
/// one client), for operators to review and end one by one.
public struct ActiveSessions: Sendable {
    package let database: any Database
    package let clock: UnixClock
    package let idleTimeout: Int64

    /// The sessions and grants in `database`; browser sessions unused for `idleTimeout` seconds count as ended.
    public init(database: any Database, clock: UnixClock = .system, idleTimeout: Int64) {
        self.database = database
        self.clock = clock
        self.idleTimeout = idleTimeout
    }

    /// A browser session, known by the start of its cookie's digest (never the cookie itself).
    public struct BrowserSessionSummary: Sendable, Codable, Equatable {
        /// The first ``ActiveSessions/handleLength`` hex digits of the cookie's SHA-256 digest.
        public var id: String
        /// How the user signed in (`amr` values).
        public var methods: [String]
        /// When the user signed in, last used the session, and when it ends at the latest (Unix seconds).
        public var authenticatedAt, lastSeenAt, expiresAt: Int64
        /// The client address and the browser's `User-Agent` it signed in from (`nil` for sessions from before they were kept).
        public var address, userAgent: String?

        package enum CodingKeys: String, CodingKey {
            case id, methods, address
            case authenticatedAt = "authenticated_at"
            case lastSeenAt = "last_seen_at"
            case expiresAt = "expires_at"
            case userAgent = "user_agent"
        }
    }

    /// A token family a client holds for the user: live while one of its access or refresh tokens is.
    public struct Grant: Sendable, Codable, Equatable {
        /// The grant's id (shared by every token of the family), and the client holding it.
        public var id, clientID: String
        /// The scopes of its newest token.
        public var scopes: [String]
        /// Whether it can be refreshed (offline access), so outlives its access tokens.
        public var refreshable: Bool
        /// When the user signed in for it (`nil` for a grant with no refresh token).
        public var authenticatedAt: Int64?
        /// When its newest token was issued, and when its last token expires (Unix seconds).
        public var lastIssuedAt, expiresAt: Int64

        package enum CodingKeys: String, CodingKey {
            case id, scopes, refreshable
            case clientID = "client_id"
            case authenticatedAt = "authenticated_at"
            case lastIssuedAt = "last_issued_at"
            case expiresAt = "expires_at"
        }

        package init(
            id: String, clientID: String, scopes: [String], refreshable: Bool, authenticatedAt: Int64? = nil, lastIssuedAt: Int64, expiresAt: Int64
        ) {
            self.id = id
            self.clientID = clientID
            self.scopes = scopes
            self.refreshable = refreshable
            self.authenticatedAt = authenticatedAt
            self.lastIssuedAt = lastIssuedAt
            self.expiresAt = expiresAt
        }
    }

    /// How many hex digits of the session's digest name it.
    package static let handleLength = 16

    /// The user's live browser sessions, newest first.
    public func browserSessions(of userID: String) async throws -> [BrowserSessionSummary] {
        let now = clock.now()
        return try await database.read { [idleTimeout] sql in
            try await sql.raw(
                """
                SELECT id_hash, amr, auth_time, last_seen_at, expires_at, address, user_agent FROM browser_sessions
                WHERE user_id = \(bind: userID) AND expires_at > \(bind: now) AND last_seen_at > \(bind: now - idleTimeout)
                ORDER BY auth_time DESC
                """
            ).all().map { row in
                BrowserSessionSummary(
                    id: String(try row.decode(column: "id_hash", as: String.self).prefix(Self.handleLength)),
                    methods: try row.decode(column: "amr", as: String.self).split(separator: " ").map(String.init),
                    authenticatedAt: try row.decode(column: "auth_time", as: Int64.self),
                    lastSeenAt: try row.decode(column: "last_seen_at", as: Int64.self), expiresAt: try row.decode(column: "expires_at", as: Int64.self),
                    address: try row.decode(column: "address", as: String?.self), userAgent: try row.decode(column: "user_agent", as: String?.self))
            }
        }
    }

    /// The user's live token grants, most recently used first.
    public func grants(of userID: String) async throws -> [Grant] {
        let now = clock.now()
        let rows = try await database.read { sql in
            let refresh = try await sql.raw(
                """
                SELECT grant_id, client_id, scope, auth_time, created_at, expires_at FROM refresh_tokens
                WHERE user_id = \(bind: userID) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(bind: now)
                    AND \(GrantRevocations.familyIsActive("refresh_tokens"))
                """
            ).all()
            let access = try await sql.raw(
                """
                SELECT grant_id, client_id, scope, created_at, expires_at FROM access_tokens
                WHERE user_id = \(bind: userID) AND grant_id IS NOT NULL AND revoked_at IS NULL AND expires_at > \(bind: now)
                    AND \(GrantRevocations.familyIsActive("access_tokens"))
                """
            ).all()
            return (refresh, access)
        }
        var grants: [String: Grant] = [:]
        for (row, refreshable) in rows.0.map({ ($0, true) }) + rows.1.map({ ($0, false) }) {
            let id = try row.decode(column: "grant_id", as: String.self)
            let issued = try row.decode(column: "created_at", as: Int64.self)
            let expires = try row.decode(column: "expires_at", as: Int64.self)
            let client = try row.decode(column: "client_id", as: String.self)
            var grant =
                grants[id] ?? Grant(id: id, clientID: client, scopes: [], refreshable: false, authenticatedAt: nil, lastIssuedAt: 0, expiresAt: 0)
            // The newest token's scopes: a refresh may have narrowed them.
            if issued >= grant.lastIssuedAt {
                grant.scopes = try row.decode(column: "scope", as: String.self).split(separator: " ").map(String.init)
                grant.lastIssuedAt = issued
            }
            grant.expiresAt = max(grant.expiresAt, expires)
            if refreshable {
                grant.refreshable = true
                grant.authenticatedAt = try row.decode(column: "auth_time", as: Int64.self)
            }
            grants[id] = grant
        }
        return grants.values.sorted { ($0.lastIssuedAt, $0.id) > ($1.lastIssuedAt, $1.id) }
    }

    /// Ends the user's browser session named `handle`; `false` when there is none.
    public func endBrowserSession(_ handle: String, of userID: String) async throws -> Bool {
        guard handle.count == Self.handleLength, handle.allSatisfy(\.isHexDigit) else { return false }
        let now = clock.now()
        return try await database.transaction { sql in
            let this: SQLQueryString =
                "user_id = \(bind: userID) AND substr(id_hash, 1, \(unsafeRaw: String(Self.handleLength))) = \(bind: handle.lowercased())"
            try await LogoutNotificationQueue.sessionsEnding(where: this, at: now, in: sql)
            return try await sql.raw("DELETE FROM browser_sessions WHERE \(this) RETURNING id_hash").first() != nil
        }
    }

    /// Revokes the user's grant `grantID` (every token of the family); its client, or `nil` when the user has no
    /// such live grant.
    public func revokeGrant(_ grantID: String, of userID: String) async throws -> String? {
        let now = clock.now()
        return try await database.transaction { sql in
            guard
                let owned = try await sql.raw(
                    """
                    SELECT client_id FROM refresh_tokens WHERE grant_id = \(bind: grantID) AND user_id = \(bind: userID)
                    UNION SELECT client_id FROM access_tokens WHERE grant_id = \(bind: grantID) AND user_id = \(bind: userID)
                    """
                ).first(),
                try await sql.raw("SELECT grant_id FROM revoked_grants WHERE grant_id = \(bind: grantID)").first() == nil
            else { return nil }
            try await GrantRevocations.revoke(grantID, extent: .everyToken, at: now, in: sql)
            return try owned.decode(column: "client_id", as: String.self)
        }
    }
}
