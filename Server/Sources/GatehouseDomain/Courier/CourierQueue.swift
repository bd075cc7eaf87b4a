import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// The courier's queue in the database: messages wait here until delivered, so a restart or a failing mail
/// server loses nothing, and any server node can deliver. Contents are sealed under the server secret (they
/// hold codes); the recipient and status stay readable for operators.
public struct CourierQueue: Sendable {
    package let database: any Database
    package let clock: UnixClock
    package let box: SecretBox

    package static let purpose = "courier v1"
    /// Seconds a node holds a message it is delivering before another node may try it.
    package static let lease: Int64 = 120

    /// The queue in `database`, whose contents are sealed under `secret` (the server's).
    public init(database: any Database, clock: UnixClock = .system, secret: ServerSecret) {
        self.init(database: database, clock: clock, box: SecretBox(serverSecret: secret.bytes, purpose: Self.purpose))
    }

    package init(database: any Database, clock: UnixClock, box: SecretBox) {
        self.database = database
        self.clock = clock
        self.box = box
    }

    private struct Content: Codable {
        var subject: String
        var body: String
    }

    /// Queues a message for delivery now; returns its id, or `nil` when `recipient` already got `hourlyLimit`
    /// messages in the last hour. The count and the insert are one statement, so a burst of flows aimed at one
    /// address cannot slip past the limit together (on PostgreSQL, concurrent transactions may each add one).
    @discardableResult
    package func enqueue(
        channel: MessageChannel, recipient: String, template: MessageTemplate, subject: String, body: String,
        hourlyLimit: Int? = nil
    ) async throws -> String? {
        // Time first, so ids sort in the order messages were queued (several can share a second).
        let micros = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        let id = String(micros, radix: 16).leftPadded(to: 14) + "-" + Hex.encode(SecureRandom.bytes(6))
        let recipient = channel == .email ? recipient.lowercased() : recipient
        let sealed = try box.seal(try JSONEncoder().encode(Content(subject: subject, body: body)))
        let now = clock.now()
        let limit = hourlyLimit ?? Int.max
        // Security notices and everything else are counted apart: each has its own budget (``MessageTemplate/isSecurityNotice``).
        let notices = MessageTemplate.securityNotices.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let budget = template.isSecurityNotice ? "template IN (\(notices))" : "template NOT IN (\(notices))"
        let inserted = try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO courier_messages (id, channel, recipient, template, sealed_content, status, attempts, next_attempt_at, created_at)
                SELECT \(bind: id), \(bind: channel.rawValue), \(bind: recipient), \(bind: template.rawValue), \(bind: sealed), 'queued', 0,
                       \(bind: now), \(bind: now)
                WHERE (SELECT COUNT(*) FROM courier_messages WHERE recipient = \(bind: recipient) AND created_at > \(bind: now - 3600)
                       AND \(unsafeRaw: budget)) < \(bind: limit)
                RETURNING id
                """
            ).first() != nil
        }
        return inserted ? id : nil
    }

    /// Messages waiting for delivery (first attempts and retries, due or not), and when the oldest was queued.
    package func backlog() async throws -> (count: Int, oldestCreatedAt: Int64?) {
        try await database.read { sql in
            let row = try await sql.raw("SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM courier_messages WHERE status = 'queued'").first()
            return (try row?.decode(column: "n", as: Int.self) ?? 0, try row?.decode(column: "oldest", as: Int64?.self))
        }
    }

    /// Takes up to `limit` messages that are due, each claimed by one statement only one node can win; the
    /// claim counts the attempt and holds the message for ``lease`` seconds.
    package func claimDue(limit: Int) async throws -> [CourierMessage] {
        let now = clock.now()
        let due = try await database.read { sql in
            try await sql.raw(
                """
                SELECT id FROM courier_messages WHERE status = 'queued' AND next_attempt_at <= \(bind: now) ORDER BY next_attempt_at LIMIT \(bind: limit)
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
        var claimed: [CourierMessage] = []
        for id in due {
            let row = try await database.transaction { sql in
                try await sql.raw(
                    """
                    UPDATE courier_messages SET attempts = attempts + 1, next_attempt_at = \(bind: now + Self.lease)
                    WHERE id = \(bind: id) AND status = 'queued' AND next_attempt_at <= \(bind: now) RETURNING *
                    """
                ).first()
            }
            if let row { claimed.append(try decode(row)) }
        }
        return claimed
    }

    package func markSent(_ id: String) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE courier_messages SET status = 'sent', sent_at = \(bind: now), last_error = NULL WHERE id = \(bind: id)
                """
            ).run()
        }
    }

    /// Records a failed attempt: the message waits `retryDelay` doubled per attempt so far (at most an hour),
    /// or fails for good when `permanent` or out of attempts. Returns the new status.
    @discardableResult
    package func markFailed(
        _ message: CourierMessage, error: String, permanent: Bool, maxAttempts: Int, retryDelay: Int64
    ) async throws -> CourierMessage.Status {
        let now = clock.now()
        let status: CourierMessage.Status = permanent || message.attempts >= maxAttempts ? .failed : .queued
        let delay = min(retryDelay << Int64(min(message.attempts - 1, 20)), 3600)
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE courier_messages SET status = \(bind: status.rawValue), next_attempt_at = \(bind: now + delay),
                    last_error = \(bind: String(error.prefix(500))) WHERE id = \(bind: message.id)
                """
            ).run()
        }
        return status
    }

    /// The newest `limit` messages, optionally only those to `recipient`.
    public func list(recipient: String? = nil, limit: Int = 20) async throws -> [CourierMessage] {
        try await database.read { sql in
            let rows =
                if let recipient {
                    try await sql.raw(
                        """
                        SELECT * FROM courier_messages WHERE recipient = \(bind: recipient.lowercased()) ORDER BY id DESC LIMIT \(bind: limit)
                        """
                    ).all()
                } else {
                    try await sql.raw("SELECT * FROM courier_messages ORDER BY id DESC LIMIT \(bind: limit)").all()
                }
            return try rows.map(decode)
        }
    }

    private func decode(_ row: any SQLRow) throws -> CourierMessage {
        let content = try JSONDecoder().decode(Content.self, from: try box.open(try row.decode(column: "sealed_content", as: String.self)))
        return CourierMessage(
            id: try row.decode(column: "id", as: String.self),
            channel: MessageChannel(rawValue: try row.decode(column: "channel", as: String.self)) ?? .email,
            recipient: try row.decode(column: "recipient", as: String.self),
            template: try row.decode(column: "template", as: String.self),
            subject: content.subject, body: content.body,
            status: CourierMessage.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .queued,
            attempts: try row.decode(column: "attempts", as: Int.self),
            nextAttemptAt: try row.decode(column: "next_attempt_at", as: Int64.self),
            lastError: try row.decode(column: "last_error", as: String?.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self),
            sentAt: try row.decode(column: "sent_at", as: Int64?.self)
        )
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension CourierQueue {
    /// Messages sent or failed are kept this long for operators (`gatehouse outbox`).
    package static let deliveredMessageDays: Int64 = 14

    /// A message sent or failed, older than ``deliveredMessageDays``.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(
            table: "courier_messages", key: "id",
            condition: "status IN ('sent', 'failed') AND created_at <= \(bind: now - deliveredMessageDays * RetentionRule.day)")
    }
}
