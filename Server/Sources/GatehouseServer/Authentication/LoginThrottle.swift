import SQLKit

/// Counts failed sign-ins per account name and blocks further attempts for a while after too many.
///
/// Keyed by the digest of the lowercased username as typed, whether or not such a user exists,
/// so being throttled says nothing about whether an account exists.
struct LoginThrottle: Sendable {
    let database: any Database
    let clock: UnixClock
    let policy: LoginThrottling

    /// Whether attempts for `username` are blocked right now.
    func isBlocked(_ username: String) async throws -> Bool {
        let now = clock.now()
        let key = Self.key(username)
        let row = try await database.read { sql in
            try await sql.raw("SELECT blocked_until FROM login_throttle WHERE subject_hash = \(bind: key)").first()
        }
        guard let row else { return false }
        return try row.decode(column: "blocked_until", as: Int64.self) > now
    }

    /// Records a failure atomically; the failure that reaches the limit starts the cool-down.
    func recordFailure(_ username: String) async throws {
        let now = clock.now()
        let key = Self.key(username)
        let windowStart = now - policy.window
        let maxFailures = policy.maxFailures
        let blockedUntil = now + policy.cooldown
        try await database.transaction { sql in
            try await sql.raw("""
                INSERT INTO login_throttle (subject_hash, failures, window_started_at, blocked_until)
                VALUES (\(bind: key), 1, \(bind: now), \(bind: maxFailures <= 1 ? blockedUntil : 0))
                ON CONFLICT (subject_hash) DO UPDATE SET
                    failures = CASE WHEN login_throttle.window_started_at <= \(bind: windowStart) THEN 1 ELSE login_throttle.failures + 1 END,
                    window_started_at = CASE WHEN login_throttle.window_started_at <= \(bind: windowStart) THEN \(bind: now) ELSE login_throttle.window_started_at END
                """).run()
            try await sql.raw("""
                UPDATE login_throttle SET blocked_until = \(bind: blockedUntil), failures = 0, window_started_at = \(bind: now)
                WHERE subject_hash = \(bind: key) AND failures >= \(bind: maxFailures)
                """).run()
        }
    }

    /// Clears the count after a successful sign-in.
    func recordSuccess(_ username: String) async throws {
        let key = Self.key(username)
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM login_throttle WHERE subject_hash = \(bind: key)").run()
        }
    }

    static func key(_ username: String) -> String {
        TokenDigest.hex("login:" + username.lowercased())
    }
}
