import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// QR sign-in sessions: a browser flow shows an access code; one device identity claims it, proves its PIN,
/// and approves; the browser flow then consumes the approval once. Every step is one conditional update, so
/// two devices (or two browser tabs) racing each other cannot both win, and any server node can answer any step.
package struct AppLoginStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// Seals the access code into the browser flow's state, so the page can show it again on every reload.
    package let box: SecretBox

    package static let purpose = "app login access codes v1"

    /// Where a session stands.
    package enum Status: String, Sendable {
        case pending, claimed, approved, aborted, expired
    }

    /// Who asked for a session, as the server saw the request that showed the QR code.
    package struct Requester: Sendable, Equatable {
        package var address: String?
        package var userAgent: String?

        package init(address: String? = nil, userAgent: String? = nil) {
            self.address = address
            self.userAgent = userAgent
        }
    }

    /// A session as a device claimed it.
    package struct Claimed: Sendable {
        package var id: String
        package var clientName: String
        package var expiresAt: Int64
        package var requester: Requester
        package var createdAt: Int64

        /// Read from a row with the session's `id`, `client_name`, `expires_at`, `created_at` and requester columns.
        init(row: any SQLRow) throws {
            id = try row.decode(column: "id", as: String.self)
            clientName = try row.decode(column: "client_name", as: String.self)
            expiresAt = try row.decode(column: "expires_at", as: Int64.self)
            requester = Requester(
                address: try row.decode(column: "requester_address", as: String?.self),
                userAgent: try row.decode(column: "requester_agent", as: String?.self))
            createdAt = try row.decode(column: "created_at", as: Int64.self)
        }
    }

    /// A new session for the browser flow `flowID`, replacing the flow's earlier ones; returns its id and access code.
    package func create(flowID: String, clientName: String, requester: Requester, lifetime: Int64) async throws -> (id: String, accessCode: String) {
        let id = SecureRandom.token(byteCount: 16)
        // 128 bits: short enough to type when a camera is not at hand, far beyond guessing within its lifetime.
        let accessCode = SecureRandom.token(byteCount: 16)
        let now = clock.now()
        let flowHash = TokenDigest.hex(flowID)
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM app_logins WHERE flow_hash = \(bind: flowHash)").run()
            try await sql.raw(
                """
                INSERT INTO app_logins (id, code_hash, flow_hash, client_name, status, created_at, expires_at, requester_address, requester_agent)
                VALUES (\(bind: id), \(bind: TokenDigest.hex(accessCode)), \(bind: flowHash), \(bind: clientName),
                        \(bind: Status.pending.rawValue), \(bind: now), \(bind: now + lifetime), \(bind: requester.address),
                        \(bind: requester.userAgent.map { String($0.prefix(256)) }))
                """
            ).run()
        }
        return (id, accessCode)
    }

    /// The status of session `id` for the flow `flowID`; `expired` once its time is up (or it is unknown).
    package func status(_ id: String, flowID: String) async throws -> Status {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT status, expires_at FROM app_logins WHERE id = \(bind: id) AND flow_hash = \(bind: TokenDigest.hex(flowID))
                """
            ).first()
        }
        guard let row, try row.decode(column: "expires_at", as: Int64.self) > now else { return .expired }
        return Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .expired
    }

    /// The statuses of the sign-ins `ids` (those still within their time), with the digest of the flow each belongs
    /// to, in as few queries as the list allows (500 ids per query).
    package func statuses(_ ids: Set<String>) async throws -> [String: (flowHash: String, status: Status)] {
        let now = clock.now()
        var found: [String: (flowHash: String, status: Status)] = [:]
        let all = Array(ids)
        for start in stride(from: 0, to: all.count, by: 500) {
            let chunk = Array(all[start..<min(start + 500, all.count)])
            let rows = try await database.read { sql in
                try await sql.raw(
                    "SELECT id, flow_hash, status FROM app_logins WHERE id IN (\(binds: chunk)) AND expires_at > \(bind: now)"
                ).all()
            }
            for row in rows {
                found[try row.decode(column: "id", as: String.self)] = (
                    try row.decode(column: "flow_hash", as: String.self),
                    Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .expired
                )
            }
        }
        return found
    }

    /// Claims the pending session behind `accessCode` for `identityID`: the access code works once.
    package func claim(accessCode: String, identityID: String, userID: String) async throws -> Claimed? {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE app_logins SET status = \(bind: Status.claimed.rawValue), identity_id = \(bind: identityID), user_id = \(bind: userID)
                WHERE code_hash = \(bind: TokenDigest.hex(accessCode)) AND status = \(bind: Status.pending.rawValue) AND expires_at > \(bind: now)
                RETURNING id, client_name, expires_at, created_at, requester_address, requester_agent
                """
            ).first().map(Claimed.init(row:))
        }
    }

    /// A fresh challenge for the PIN attempt on session `id` (claimed by `identityID`), replacing the last one;
    /// `nil` when the session is not waiting for this identity's PIN.
    package func newChallenge(_ id: String, identityID: String) async throws -> String? {
        let challenge = SecureRandom.token()
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE app_logins SET challenge = \(bind: challenge)
                WHERE id = \(bind: id) AND identity_id = \(bind: identityID) AND status = \(bind: Status.claimed.rawValue) AND expires_at > \(bind: now)
                RETURNING id
                """
            ).first() == nil ? nil : challenge
        }
    }

    /// What session `id` waits for from `identityID`: the signed challenge, and for a pushed session the number the
    /// browser shows.
    package func challenge(_ id: String, identityID: String) async throws -> (challenge: String, number: Int?)? {
        let now = clock.now()
        return try await database.read { sql in
            guard
                let row = try await sql.raw(
                    """
                    SELECT challenge, number FROM app_logins
                    WHERE id = \(bind: id) AND identity_id = \(bind: identityID) AND status = \(bind: Status.claimed.rawValue) AND expires_at > \(bind: now)
                    """
                ).first(), let challenge = try row.decode(column: "challenge", as: String?.self)
            else { return nil }
            return (challenge, try row.decode(column: "number", as: Int?.self))
        }
    }

    /// The signature over `challenge` was right: approves the session (the challenge is used up) and starts the
    /// identity's count of wrong PINs again, in one transaction. The browser then has `grace` seconds to finish.
    package func approve(_ id: String, identityID: String, challenge: String, grace: Int64) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            let approved =
                try await sql.raw(
                    """
                    UPDATE app_logins SET status = \(bind: Status.approved.rawValue), challenge = NULL, expires_at = \(bind: now + grace)
                    WHERE id = \(bind: id) AND identity_id = \(bind: identityID) AND status = \(bind: Status.claimed.rawValue)
                        AND challenge = \(bind: challenge) AND expires_at > \(bind: now)
                    RETURNING id
                    """
                ).first() != nil
            guard approved else { return false }
            try await sql.raw(
                """
                UPDATE device_identities SET pin_failures = 0, last_used_at = \(bind: now), updated_at = \(bind: now) WHERE id = \(bind: identityID)
                """
            ).run()
            return true
        }
    }

    /// The person cancelled in the app; `false` when the session was not this identity's to cancel.
    package func abort(_ id: String, identityID: String) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE app_logins SET status = \(bind: Status.aborted.rawValue), challenge = NULL
                WHERE id = \(bind: id) AND identity_id = \(bind: identityID) AND status = \(bind: Status.claimed.rawValue) AND expires_at > \(bind: now)
                RETURNING id
                """
            ).first() != nil
        }
    }

    /// Whose app approved session `id` for the flow `flowID`, while it waits to be used (``consume(_:flowID:)``);
    /// `nil` when it is not approved, or its time is up.
    package func approvedUser(_ id: String, flowID: String) async throws -> String? {
        let now = clock.now()
        return try await database.read { sql in
            try await sql.raw(
                """
                SELECT user_id FROM app_logins
                WHERE id = \(bind: id) AND flow_hash = \(bind: TokenDigest.hex(flowID)) AND status = \(bind: Status.approved.rawValue) AND expires_at > \(bind: now)
                """
            ).first().flatMap { try $0.decode(column: "user_id", as: String?.self) }
        }
    }

    /// Ends an approved session for its browser flow and returns whose sign-in it is; only one caller gets it.
    package func consume(_ id: String, flowID: String) async throws -> String? {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                DELETE FROM app_logins
                WHERE id = \(bind: id) AND flow_hash = \(bind: TokenDigest.hex(flowID)) AND status = \(bind: Status.approved.rawValue) AND expires_at > \(bind: now)
                RETURNING user_id
                """
            ).first().flatMap { try $0.decode(column: "user_id", as: String?.self) }
        }
    }

    package init(database: any Database, clock: UnixClock, box: SecretBox) {
        self.database = database
        self.clock = clock
        self.box = box
    }
}

extension AppLoginStore {
    /// A QR sign-in keeps an hour past expiry, so whoever still polls it is told it expired.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "app_logins", key: "id", condition: "expires_at <= \(bind: now - RetentionRule.hour)")
    }
}
