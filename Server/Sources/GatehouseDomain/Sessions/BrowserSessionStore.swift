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
    ///
    /// The same person signing in again in the same browser keeps the session's public id (`sid`) and the clients it
    /// signed in to: to them it is one session. Someone else signing in ends the other person's session, which clients
    /// are told.
    package func start(userID: String, methods: [String], lifetime: Int64, replacing previousID: String?) async throws -> (id: String, session: BrowserSession)
    {
        let id = SecureRandom.token()
        let now = clock.now()
        var session = BrowserSession(userID: userID, authTime: now, methods: methods, expiresAt: now + lifetime)
        // Where the request that signs in comes from, as the audit trail records it (the browser names itself; kept short).
        let context = AuditContext.current
        let origin = (address: context.address, userAgent: context.userAgent.map { String($0.prefix(256)) })
        session.sid = try await database.transaction { [session] sql in
            var sid = SecureRandom.token(byteCount: 16)
            if let previousID {
                let previous: SQLQueryString = "id_hash = \(bind: TokenDigest.hex(previousID))"
                if let kept = try await sql.raw("SELECT sid FROM browser_sessions WHERE \(previous) AND user_id = \(bind: userID)").first(),
                    let keptSID = try kept.decode(column: "sid", as: String?.self)
                {
                    sid = keptSID
                } else {
                    try await LogoutNotificationQueue.sessionsEnding(where: previous, at: now, in: sql)
                }
                try await sql.raw("DELETE FROM browser_sessions WHERE \(previous)").run()
            }
            try await sql.raw(
                """
                INSERT INTO browser_sessions (id_hash, user_id, auth_time, amr, created_at, expires_at, last_seen_at, address, user_agent, sid)
                VALUES (\(bind: TokenDigest.hex(id)), \(bind: userID), \(bind: now), \(bind: methods.joined(separator: " ")),
                        \(bind: now), \(bind: session.expiresAt), \(bind: now), \(bind: origin.address), \(bind: origin.userAgent), \(bind: sid))
                """
            ).run()
            return sid
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
            expiresAt: try row.decode(column: "expires_at", as: Int64.self),
            sid: try row.decode(column: "sid", as: String?.self)
        )
    }

    /// A session that ended: its public id, and the clients it had signed in to (for front-channel logout).
    package struct Ended: Sendable, Equatable {
        package var sid: String?
        package var clientIDs: [String]
    }

    /// Ends the session (its clients with a back-channel logout URI are queued a notification); what it was, or `nil`
    /// when there was no such session.
    @discardableResult
    package func end(id: String) async throws -> Ended? {
        let now = clock.now()
        return try await database.transaction { sql in
            let this: SQLQueryString = "id_hash = \(bind: TokenDigest.hex(id))"
            guard let row = try await sql.raw("SELECT sid FROM browser_sessions WHERE \(this)").first() else { return nil }
            let sid = try row.decode(column: "sid", as: String?.self)
            var clients: [String] = []
            if let sid { clients = try await LogoutNotificationQueue.clients(ofSession: sid, in: sql) }
            try await LogoutNotificationQueue.sessionsEnding(where: this, at: now, in: sql)
            try await sql.raw("DELETE FROM browser_sessions WHERE \(this)").run()
            return Ended(sid: sid, clientIDs: clients)
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
