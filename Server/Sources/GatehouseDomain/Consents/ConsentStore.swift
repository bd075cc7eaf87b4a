import GatehouseFoundation
import SQLKit

/// What people allowed third-party clients (``Client/isThirdParty``): one row per person and client, kept until the
/// person revokes it, the client is deleted or the account is.
public struct ConsentStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// What `userID` allowed `clientID`, or `nil` when they never allowed it anything (or revoked it).
    public func find(userID: String, clientID: String) async throws -> Consent? {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM consents WHERE user_id = \(bind: userID) AND client_id = \(bind: clientID)").first().map(Self.decode)
        }
    }

    /// Everything `userID` allowed, most recently changed first.
    public func list(of userID: String) async throws -> [Consent] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM consents WHERE user_id = \(bind: userID) ORDER BY updated_at DESC, client_id").all().map(Self.decode)
        }
    }

    /// Adds `scopes` to what `userID` allowed `clientID` (in the caller's transaction when there is one), and
    /// returns the consent as it now is.
    @discardableResult
    package func grant(_ scopes: [String], to clientID: String, by userID: String) async throws -> Consent {
        let now = clock.now()
        return try await database.transaction { sql in
            let current = try await sql.raw("SELECT * FROM consents WHERE user_id = \(bind: userID) AND client_id = \(bind: clientID)").first()
                .map(Self.decode)
            let allowed = (current?.scopes ?? []) + (current?.missing(from: scopes) ?? scopes)
            try await sql.raw(
                """
                INSERT INTO consents (user_id, client_id, scope, granted_at, updated_at)
                VALUES (\(bind: userID), \(bind: clientID), \(bind: allowed.joined(separator: " ")), \(bind: now), \(bind: now))
                ON CONFLICT (user_id, client_id) DO UPDATE SET scope = excluded.scope, updated_at = excluded.updated_at
                """
            ).run()
            return Consent(userID: userID, clientID: clientID, scopes: allowed, grantedAt: current?.grantedAt ?? now, updatedAt: now)
        }
    }

    /// Forgets what `userID` allowed `clientID` and revokes every access and refresh token the client holds for
    /// them, in one transaction: an app the person cut off keeps nothing it could go on using. `nil` when there was
    /// no such consent; otherwise the scopes it had.
    public func revoke(clientID: String, of userID: String) async throws -> [String]? {
        let now = clock.now()
        return try await database.transaction { sql in
            guard
                let removed = try await sql.raw(
                    "DELETE FROM consents WHERE user_id = \(bind: userID) AND client_id = \(bind: clientID) RETURNING scope"
                ).first()
            else { return nil }
            for table in ["access_tokens", "refresh_tokens"] {
                try await sql.raw(
                    """
                    UPDATE \(unsafeRaw: table) SET revoked_at = \(bind: now)
                    WHERE user_id = \(bind: userID) AND client_id = \(bind: clientID) AND revoked_at IS NULL
                    """
                ).run()
            }
            return try removed.decode(column: "scope", as: String.self).split(separator: " ").map(String.init)
        }
    }

    private static func decode(_ row: any SQLRow) throws -> Consent {
        Consent(
            userID: try row.decode(column: "user_id", as: String.self), clientID: try row.decode(column: "client_id", as: String.self),
            scopes: try row.decode(column: "scope", as: String.self).split(separator: " ").map(String.init),
            grantedAt: try row.decode(column: "granted_at", as: Int64.self), updatedAt: try row.decode(column: "updated_at", as: Int64.self))
    }
}
