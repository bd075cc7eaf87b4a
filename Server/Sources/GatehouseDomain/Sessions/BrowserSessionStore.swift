import GatehouseFoundation
import SQLKit

/// Browser sessions, known by an unguessable id held in a cookie; only its SHA-256 digest is stored.
///
/// A session ends at its absolute expiry or after `idleTimeout` seconds without use, whichever comes first.
package struct BrowserSessionStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    package let idleTimeout: Int64

    /// Use is recorded at most this often, so a busy session does not write on every request; small enough
    /// against the idle timeout that a session in use never lapses.
    private var touchInterval: Int64 { min(60, idleTimeout / 4) }

    /// Starts a new session (always a new id, so a session id planted before sign-in is worthless),
    /// ending `replacing` if the browser had one. Returns the new id.
    package func start(userID: String, methods: [String], lifetime: Int64, replacing previousID: String?) async throws -> (id: String, session: BrowserSession)
    {
        let id = SecureRandom.token()
        let now = clock.now()
        let session = BrowserSession(userID: userID, authTime: now, methods: methods, expiresAt: now + lifetime)
        // Where the request that signs in comes from, as the audit trail records it (the browser names itself; kept short).
        let context = AuditContext.current
        let origin = (address: context.address, userAgent: context.userAgent.map { String($0.prefix(256)) })
        try await database.transaction { sql in
            if let previousID {
                try await sql.raw("DELETE FROM browser_sessions WHERE id_hash = \(bind: TokenDigest.hex(previousID))").run()
            }
            try await sql.raw(
                """
                INSERT INTO browser_sessions (id_hash, user_id, auth_time, amr, created_at, expires_at, last_seen_at, address, user_agent)
                VALUES (\(bind: TokenDigest.hex(id)), \(bind: userID), \(bind: now), \(bind: methods.joined(separator: " ")),
                        \(bind: now), \(bind: session.expiresAt), \(bind: now), \(bind: origin.address), \(bind: origin.userAgent))
                """
            ).run()
        }
        return (id, session)
    }

    /// The session with this id, unless it expired or sat unused past the idle timeout; finding it counts as use.
    package func find(id: String) async throws -> BrowserSession? {
        let now = clock.now()
        let digest = TokenDigest.hex(id)
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT * FROM browser_sessions
                WHERE id_hash = \(bind: digest) AND expires_at > \(bind: now) AND last_seen_at > \(bind: now - idleTimeout)
                """
            ).first()
        }
        guard let row else { return nil }
        if now - (try row.decode(column: "last_seen_at", as: Int64.self)) > touchInterval {
            try await database.transaction { sql in
                try await sql.raw("UPDATE browser_sessions SET last_seen_at = \(bind: now) WHERE id_hash = \(bind: digest)").run()
            }
        }
        return BrowserSession(
            userID: try row.decode(column: "user_id", as: String.self),
            authTime: try row.decode(column: "auth_time", as: Int64.self),
            methods: try row.decode(column: "amr", as: String.self).split(separator: " ").map(String.init),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self)
        )
    }

    package func end(id: String) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM browser_sessions WHERE id_hash = \(bind: TokenDigest.hex(id))").run()
        }
    }

    package init(database: any Database, clock: UnixClock, idleTimeout: Int64) {
        self.database = database
        self.clock = clock
        self.idleTimeout = idleTimeout
    }
}

extension BrowserSessionStore {
    /// A session past its lifetime, or unused for `idle` seconds.
    package static func retention(at now: Int64, idle: Int64) -> RetentionRule {
        RetentionRule(table: "browser_sessions", key: "id_hash", condition: "expires_at <= \(bind: now) OR last_seen_at <= \(bind: now - idle)")
    }
}
