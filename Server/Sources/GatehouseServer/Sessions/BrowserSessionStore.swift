import SQLKit

/// Browser sessions, known by an unguessable id held in a cookie; only its SHA-256 digest is stored.
struct BrowserSessionStore: Sendable {
    let database: any Database
    let clock: UnixClock

    /// Starts a new session (always a new id, so a session id planted before sign-in is worthless),
    /// ending `replacing` if the browser had one. Returns the new id.
    func start(userID: String, methods: [String], lifetime: Int64, replacing previousID: String?) async throws -> (id: String, session: BrowserSession) {
        let id = SecureRandom.token()
        let now = clock.now()
        let session = BrowserSession(userID: userID, authTime: now, methods: methods, expiresAt: now + lifetime)
        try await database.transaction { sql in
            if let previousID {
                try await sql.raw("DELETE FROM browser_sessions WHERE id_hash = \(bind: TokenDigest.hex(previousID))").run()
            }
            try await sql.raw("DELETE FROM browser_sessions WHERE expires_at <= \(bind: now)").run()
            try await sql.raw("""
                INSERT INTO browser_sessions (id_hash, user_id, auth_time, amr, created_at, expires_at)
                VALUES (\(bind: TokenDigest.hex(id)), \(bind: userID), \(bind: now), \(bind: methods.joined(separator: " ")),
                        \(bind: now), \(bind: session.expiresAt))
                """).run()
        }
        return (id, session)
    }

    /// The unexpired session with this id.
    func find(id: String) async throws -> BrowserSession? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw("""
                SELECT * FROM browser_sessions WHERE id_hash = \(bind: TokenDigest.hex(id)) AND expires_at > \(bind: now)
                """).first()
        }
        guard let row else { return nil }
        return BrowserSession(
            userID: try row.decode(column: "user_id", as: String.self),
            authTime: try row.decode(column: "auth_time", as: Int64.self),
            methods: try row.decode(column: "amr", as: String.self).split(separator: " ").map(String.init),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self)
        )
    }

    func end(id: String) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM browser_sessions WHERE id_hash = \(bind: TokenDigest.hex(id))").run()
        }
    }
}
