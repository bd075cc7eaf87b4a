import GatehouseFoundation
import SQLKit

/// Clients to tell that a person signed out (OpenID Connect Back-Channel Logout 1.0): when browser sessions end, each
/// client with a back-channel logout URI that a session signed in to is queued here, once, and any node delivers it,
/// retrying a client that does not answer.
///
/// Which clients a session signed in to is kept in `session_clients`, written with each authorization code
/// (``record(sid:clientID:userID:at:in:)``) and forgotten when the session ends.
package struct LogoutNotificationQueue: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// Seconds a claimed notification is held for its node before another may try it.
    package static let lease: Int64 = 60

    /// A client to tell that the session `sid` of `userID` ended.
    package struct Notification: Sendable, Equatable {
        package var sid: String
        package var clientID: String
        package var userID: String
        /// Attempts so far, this one included once claimed.
        package var attempts: Int
        package var createdAt: Int64
        /// When this attempt was claimed: the next one is scheduled from its start, not from when it gave up, so a
        /// client that lets each post run to the timeout keeps the documented schedule.
        package var claimedAt: Int64
    }

    package init(database: any Database, clock: UnixClock) {
        self.database = database
        self.clock = clock
    }

    /// Remembers that the session `sid` signed `userID` in to `clientID`, inside the transaction issuing its code.
    package static func record(sid: String, clientID: String, userID: String, at now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO session_clients (sid, client_id, user_id, created_at) VALUES (\(bind: sid), \(bind: clientID), \(bind: userID), \(bind: now))
            ON CONFLICT DO NOTHING
            """
        ).run()
    }

    /// The clients the session `sid` signed in to.
    package static func clients(ofSession sid: String, in sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw("SELECT client_id FROM session_clients WHERE sid = \(bind: sid) ORDER BY created_at").all().map {
            try $0.decode(column: "client_id", as: String.self)
        }
    }

    /// Queues a notification to every client with a back-channel logout URI that the browser sessions `condition`
    /// selects signed in to, and forgets those sessions' clients. Called in the transaction that deletes the sessions,
    /// before it does.
    package static func sessionsEnding(where condition: SQLQueryString, at now: Int64, in sql: any SQLDatabase) async throws {
        let ending: SQLQueryString = "SELECT sid FROM browser_sessions WHERE sid IS NOT NULL AND (" + condition + ")"
        try await sql.raw(
            """
            INSERT INTO logout_notifications (sid, client_id, user_id, created_at, next_attempt_at, attempts)
            SELECT sc.sid, sc.client_id, sc.user_id, \(bind: now), \(bind: now), 0
            FROM session_clients sc JOIN clients c ON c.id = sc.client_id
            WHERE c.backchannel_logout_uri IS NOT NULL AND sc.sid IN (\(ending))
            ON CONFLICT DO NOTHING
            """
        ).run()
        try await sql.raw("DELETE FROM session_clients WHERE sid IN (\(ending))").run()
    }

    /// Takes up to `limit` due notifications, each claimed by one statement only one node can win; the claim counts
    /// the attempt and holds the notification for ``lease`` seconds.
    package func claimDue(limit: Int) async throws -> [Notification] {
        let now = clock.now()
        let due = try await database.read { sql in
            try await sql.raw(
                "SELECT sid, client_id FROM logout_notifications WHERE next_attempt_at <= \(bind: now) ORDER BY next_attempt_at LIMIT \(bind: limit)"
            ).all().map { (try $0.decode(column: "sid", as: String.self), try $0.decode(column: "client_id", as: String.self)) }
        }
        var claimed: [Notification] = []
        for (sid, clientID) in due {
            let row = try await database.transaction { sql in
                try await sql.raw(
                    """
                    UPDATE logout_notifications SET attempts = attempts + 1, next_attempt_at = \(bind: now + Self.lease)
                    WHERE sid = \(bind: sid) AND client_id = \(bind: clientID) AND next_attempt_at <= \(bind: now) RETURNING *
                    """
                ).first()
            }
            guard let row else { continue }
            claimed.append(
                Notification(
                    sid: sid, clientID: clientID, userID: try row.decode(column: "user_id", as: String.self),
                    attempts: try row.decode(column: "attempts", as: Int.self), createdAt: try row.decode(column: "created_at", as: Int64.self),
                    claimedAt: now))
        }
        return claimed
    }

    /// The notification reached its client: it goes.
    package func delivered(_ notification: Notification) async throws {
        try await database.transaction { sql in
            try await sql.raw(
                "DELETE FROM logout_notifications WHERE sid = \(bind: notification.sid) AND client_id = \(bind: notification.clientID)"
            ).run()
        }
    }

    /// An attempt failed: the notification is due `retryDelay` doubled per attempt so far (at most an hour) after the
    /// attempt began, or, out of attempts, goes. Returns whether it was given up.
    package func failed(_ notification: Notification, error: String, maxAttempts: Int, retryDelay: Int64) async throws -> Bool {
        let givenUp = notification.attempts >= maxAttempts
        let delay = min(retryDelay << Int64(min(notification.attempts - 1, 20)), 3600)
        try await database.transaction { sql in
            if givenUp {
                try await sql.raw(
                    "DELETE FROM logout_notifications WHERE sid = \(bind: notification.sid) AND client_id = \(bind: notification.clientID)"
                ).run()
            } else {
                try await sql.raw(
                    """
                    UPDATE logout_notifications SET next_attempt_at = \(bind: notification.claimedAt + delay), last_error = \(bind: String(error.prefix(500)))
                    WHERE sid = \(bind: notification.sid) AND client_id = \(bind: notification.clientID)
                    """
                ).run()
            }
        }
        return givenUp
    }

    /// Notifications waiting (first attempts and retries).
    package func backlog() async throws -> Int {
        try await database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM logout_notifications").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// The clients of a session that ended without a sign-out (it expired or sat unused): nobody is told.
    package static func retention() -> RetentionRule {
        RetentionRule(
            table: "session_clients", key: "sid, client_id",
            condition: "NOT EXISTS (SELECT 1 FROM browser_sessions b WHERE b.sid = session_clients.sid)")
    }
}
