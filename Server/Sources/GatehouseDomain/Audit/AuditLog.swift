import Foundation
import GatehouseFoundation
import NIOConcurrencyHelpers
import SQLKit

/// The audit trail in the database. An event is written in the transaction of the change it describes (the stores'
/// transactions join the running one), so a change that rolls back leaves no event, and an event never describes a
/// change that did not happen.
public struct AuditLog: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// The trail in `database`.
    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// Records an event of `type` about `userID`, with the running request's address, user agent and request id.
    /// `details` must never hold a secret.
    public func record(
        _ type: AuditEventType, user userID: String? = nil, client clientID: String? = nil, actor: String? = nil, details: [String: String] = [:]
    ) async throws {
        let context = AuditContext.current
        let now = clock.now()
        let event = AuditEvent(
            id: Self.eventID(at: now), type: type, occurredAt: now, actor: actor ?? context.actor ?? userID.map { "user:\($0)" } ?? "system",
            userID: userID, clientID: clientID, address: context.address, userAgent: context.userAgent.map { String($0.prefix(256)) },
            requestID: context.requestID, details: details)
        let encoded = String(decoding: try JSONEncoder().encode(event.details), as: UTF8.self)
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO audit_events (id, type, occurred_at, actor, user_id, client_id, address, user_agent, request_id, details)
                VALUES (\(bind: event.id), \(bind: event.type.rawValue), \(bind: event.occurredAt), \(bind: event.actor), \(bind: event.userID),
                        \(bind: event.clientID), \(bind: event.address), \(bind: event.userAgent), \(bind: event.requestID), \(bind: encoded))
                """
            ).run()
        }
        // Counted once the event is committed: inside a transaction, after it commits; else now.
        TransactionScope.afterCommit(of: database) { GatehouseMetrics.record(event) }
    }

    /// A time-ordered id: the event's second, then a microsecond count that only goes up in this process (so events
    /// of one request keep their order), then random (so two nodes never collide).
    package static func eventID(at second: Int64) -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let tick = sequence.withLockedValue { last in
            last = max(last + 1, now)
            return last
        }
        return String(format: "%011lld-%016lld-", second, tick) + SecureRandom.token().prefix(8)
    }

    private static let sequence = NIOLockedValueBox<Int64>(0)

    /// Which events a query wants; every part left `nil` matches all.
    public struct Filter: Sendable {
        public var types: [AuditEventType]?
        public var userID: String?
        public var clientID: String?
        /// Who acted (`user:ID`, `admin_token:ID`, `client:ID`, `operator`, `system`).
        public var actor: String?
        /// The request the event was part of (`X-Request-ID`), to follow one request through the trail.
        public var requestID: String?
        public var since: Int64?
        public var until: Int64?
        /// Only events after this id (the last one of the previous page), oldest first.
        public var after: String?

        public init(
            types: [AuditEventType]? = nil, userID: String? = nil, clientID: String? = nil, actor: String? = nil, requestID: String? = nil,
            since: Int64? = nil, until: Int64? = nil, after: String? = nil
        ) {
            self.actor = actor
            self.requestID = requestID
            self.types = types
            self.userID = userID
            self.clientID = clientID
            self.since = since
            self.until = until
            self.after = after
        }
    }

    /// Up to `limit` events matching `filter`, oldest first.
    public func events(_ filter: Filter, limit: Int) async throws -> [AuditEvent] {
        let statement = Self.matching(filter, selecting: "*") + " ORDER BY id LIMIT \(bind: max(1, min(limit, 10_000)))"
        return try await database.read { sql in
            // An event of a type this version does not know (written by a newer one) is left out.
            try await sql.raw(statement).all().compactMap(Self.decode)
        }
    }

    /// The newest `limit` events matching `filter`, newest first (the console's trail).
    public func newest(_ filter: Filter, limit: Int) async throws -> [AuditEvent] {
        let statement = Self.matching(filter, selecting: "*") + " ORDER BY id DESC LIMIT \(bind: max(1, min(limit, 10_000)))"
        return try await database.read { sql in try await sql.raw(statement).all().compactMap(Self.decode) }
    }

    /// How many events match `filter` (with no types named, those of types this version does not know too).
    public func count(_ filter: Filter) async throws -> Int {
        let statement = Self.matching(filter, selecting: "COUNT(*) AS count")
        return try await database.read { sql in try await sql.raw(statement).first()?.decode(column: "count", as: Int.self) ?? 0 }
    }

    /// How many events of each type `filter` matches in each hour (counted from the Unix epoch), for the console's
    /// overview: one query rather than one per hour.
    public func countsPerHour(_ filter: Filter) async throws -> [HourCount] {
        let statement = Self.matching(filter, selecting: "occurred_at / 3600 AS hour, type, COUNT(*) AS count") + " GROUP BY occurred_at / 3600, type"
        return try await database.read { sql in
            try await sql.raw(statement).all().compactMap { row in
                guard let type = AuditEventType(rawValue: try row.decode(column: "type", as: String.self)) else { return nil }
                return HourCount(
                    hourStart: try row.decode(column: "hour", as: Int64.self) * 3600, type: type, count: try row.decode(column: "count", as: Int.self))
            }
        }
    }

    /// Events of one type in one hour.
    public struct HourCount: Sendable, Equatable {
        /// The hour's first second (Unix time).
        public var hourStart: Int64
        /// The events' type.
        public var type: AuditEventType
        /// How many there were.
        public var count: Int
    }

    /// The query of the events `filter` matches, with the columns `columns`.
    private static func matching(_ filter: Filter, selecting columns: String) -> SQLQueryString {
        var conditions: [SQLQueryString] = []
        if let types = filter.types, !types.isEmpty {
            conditions.append("type IN (\(unsafeRaw: types.map { "'\($0.rawValue)'" }.joined(separator: ", ")))")
        }
        if let user = filter.userID { conditions.append("user_id = \(bind: user)") }
        if let client = filter.clientID { conditions.append("client_id = \(bind: client)") }
        if let actor = filter.actor { conditions.append("actor = \(bind: actor)") }
        if let request = filter.requestID { conditions.append("request_id = \(bind: request)") }
        if let since = filter.since { conditions.append("occurred_at >= \(bind: since)") }
        if let until = filter.until { conditions.append("occurred_at < \(bind: until)") }
        if let after = filter.after { conditions.append("id > \(bind: after)") }
        var query: SQLQueryString = "SELECT \(unsafeRaw: columns) FROM audit_events"
        for (index, condition) in conditions.enumerated() { query = query + (index == 0 ? " WHERE " : " AND ") + condition }
        return query
    }

    /// The id of the newest event kept, or `nil` for an empty trail.
    public func newestEventID() async throws -> String? {
        try await database.read { sql in
            try await sql.raw("SELECT id FROM audit_events ORDER BY id DESC LIMIT 1").first()?.decode(column: "id", as: String.self)
        }
    }

    /// The newest `limit` events of `userID`, newest first (the account page's security events).
    public func recent(of userID: String, limit: Int) async throws -> [AuditEvent] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM audit_events WHERE user_id = \(bind: userID) ORDER BY id DESC LIMIT \(bind: max(1, min(limit, 1000)))")
                .all().compactMap(Self.decode)
        }
    }

    package static func decode(_ row: any SQLRow) throws -> AuditEvent? {
        let details = try row.decode(column: "details", as: String.self)
        guard let type = AuditEventType(rawValue: try row.decode(column: "type", as: String.self)) else { return nil }
        return AuditEvent(
            id: try row.decode(column: "id", as: String.self), type: type,
            occurredAt: try row.decode(column: "occurred_at", as: Int64.self), actor: try row.decode(column: "actor", as: String.self),
            userID: try row.decode(column: "user_id", as: String?.self), clientID: try row.decode(column: "client_id", as: String?.self),
            address: try row.decode(column: "address", as: String?.self), userAgent: try row.decode(column: "user_agent", as: String?.self),
            requestID: try row.decode(column: "request_id", as: String?.self),
            details: (try? JSONDecoder().decode([String: String].self, from: Data(details.utf8))) ?? [:])
    }
}

extension AuditLog {
    /// An event older than the policy's `retentionDays`.
    package static func retention(at now: Int64, retentionDays: Int) -> RetentionRule {
        RetentionRule(table: "audit_events", key: "id", condition: "occurred_at < \(bind: now - Int64(retentionDays) * RetentionRule.day)")
    }
}
