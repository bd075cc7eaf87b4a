import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Device authorizations (RFC 8628): a device's pair of codes, from its request until it collects its tokens.
///
/// Both codes are kept only as digests: the device code as a plain SHA-256 (it is a 256-bit secret), the user code
/// keyed under the server secret (it has only about 35 bits, so a copied database alone must not be able to test
/// guesses). The user's answer and the device's collection are each one conditional statement, so an authorization
/// is answered once and redeemed once, on any number of nodes.
package struct DeviceAuthorizationStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    package let box: SecretBox

    package static let purpose = "device authorizations v1"
    /// RFC 8628 §6.1's example alphabet: 20 consonants, no vowels (no words), no digits (none to confuse with letters).
    package static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    /// Seconds added to a device's interval each time it polls too soon (RFC 8628 §3.5).
    package static let slowDownStep: Int64 = 5

    /// What a new authorization gives the device.
    package struct Started: Sendable, Equatable {
        package var deviceCode: String
        /// `WDJB-MJHT`.
        package var userCode: String
        package var expiresAt: Int64
        package var interval: Int64
    }

    /// An authorization as the `/device` page sees it.
    package struct Pending: Sendable, Equatable {
        package var id: String
        package var clientID: String
        package var scopes: [String]
        package var status: Status
        package var expiresAt: Int64
    }

    package enum Status: String, Sendable {
        case pending, approved, denied, redeemed
    }

    /// What a device's poll found (RFC 8628 §3.5).
    package enum Poll: Sendable, Equatable {
        /// The user has not answered yet.
        case pending
        /// Polled sooner than its interval: now this many seconds.
        case slowDown(interval: Int64)
        case denied
        case expired
        /// Unknown, another client's, or already collected.
        case invalid
        /// Approved: the grant to issue tokens for, handed out this once.
        case approved(Grant)
    }

    /// Starts an authorization of `scopes` for `clientID`.
    package func start(clientID: String, scopes: [String], lifetime: Int64, interval: Int64) async throws -> Started {
        let now = clock.now()
        // A clash with a live user code is rare (a few in 2.5 × 10¹⁰); another draw settles it.
        for _ in 0..<3 {
            let deviceCode = SecureRandom.token()
            let userCode = Self.userCode()
            let userCodeHash = Self.userCodeHash(userCode, box: box)
            let inserted = try await database.transaction { sql in
                guard try await sql.raw("SELECT id FROM device_authorizations WHERE user_code_hash = \(bind: userCodeHash)").first() == nil else {
                    return false
                }
                try await sql.raw(
                    """
                    INSERT INTO device_authorizations (id, device_code_hash, user_code_hash, client_id, scope, status, poll_interval,
                                                       created_at, expires_at)
                    VALUES (\(bind: SecureRandom.token(byteCount: 16)), \(bind: TokenDigest.hex(deviceCode)), \(bind: userCodeHash),
                            \(bind: clientID), \(bind: scopes.joined(separator: " ")), 'pending', \(bind: interval), \(bind: now),
                            \(bind: now + lifetime))
                    """
                ).run()
                return true
            }
            if inserted { return Started(deviceCode: deviceCode, userCode: userCode, expiresAt: now + lifetime, interval: interval) }
        }
        throw DatabaseError.duplicate("A device authorization's user code")
    }

    /// The live authorization whose user code is `userCode` (typed in any case, with or without its hyphen).
    package func find(userCode: String) async throws -> Pending? {
        let canonical = Self.canonical(userCode)
        guard canonical.count == 8 else { return nil }
        let hash = Self.userCodeHash(canonical, box: box)
        return try await database.read { sql in
            try await sql.raw("SELECT * FROM device_authorizations WHERE user_code_hash = \(bind: hash)").first().map(Self.decode)
        }.flatMap(live)
    }

    /// The live authorization `id` (the handle the `/device` page passes between its steps).
    package func find(id: String) async throws -> Pending? {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM device_authorizations WHERE id = \(bind: id)").first().map(Self.decode)
        }.flatMap(live)
    }

    /// Records the user's answer to the pending authorization `id`: approved for `userID` (signed in at `authTime`
    /// with `methods`), or denied. `false` when it was answered already or expired. Runs in the caller's transaction.
    package func answer(_ id: String, approved: Bool, userID: String, authTime: Int64, methods: [String]) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE device_authorizations SET status = \(bind: approved ? Status.approved.rawValue : Status.denied.rawValue),
                    user_id = \(bind: userID), auth_time = \(bind: authTime), amr = \(bind: methods.joined(separator: " "))
                WHERE id = \(bind: id) AND status = 'pending' AND expires_at > \(bind: now)
                RETURNING id
                """
            ).first() != nil
        }
    }

    /// A poll by `clientID` with `deviceCode`: counted (a poll sooner than the interval raises it), and an approved
    /// authorization is redeemed by the one poll that gets there first.
    package func poll(deviceCode: String, clientID: String) async throws -> Poll {
        let hash = TokenDigest.hex(deviceCode)
        let now = clock.now()
        return try await database.transaction { sql in
            let tooSoon = try await sql.raw(
                """
                UPDATE device_authorizations SET poll_interval = poll_interval + \(bind: Self.slowDownStep), last_polled_at = \(bind: now)
                WHERE device_code_hash = \(bind: hash) AND client_id = \(bind: clientID) AND status <> 'redeemed'
                    AND expires_at > \(bind: now) AND last_polled_at IS NOT NULL AND last_polled_at > \(bind: now) - poll_interval
                RETURNING poll_interval
                """
            ).first()
            if let tooSoon { return .slowDown(interval: try tooSoon.decode(column: "poll_interval", as: Int64.self)) }
            guard
                let row = try await sql.raw(
                    """
                    UPDATE device_authorizations SET last_polled_at = \(bind: now)
                    WHERE device_code_hash = \(bind: hash) AND client_id = \(bind: clientID)
                    RETURNING *
                    """
                ).first()
            else { return .invalid }
            let found = try Self.decode(row)
            if found.status == .redeemed { return .invalid }
            if found.expiresAt <= now { return .expired }
            switch found.status {
            case .pending: return .pending
            case .denied: return .denied
            case .redeemed: return .invalid
            case .approved:
                guard
                    try await sql.raw(
                        "UPDATE device_authorizations SET status = 'redeemed' WHERE id = \(bind: found.id) AND status = 'approved' RETURNING id"
                    ).first() != nil
                else { return .invalid }
                return .approved(
                    Grant(
                        id: SecureRandom.token(byteCount: 16), clientID: found.clientID,
                        userID: try row.decode(column: "user_id", as: String.self), scopes: found.scopes,
                        authTime: try row.decode(column: "auth_time", as: Int64.self),
                        methods: (try row.decode(column: "amr", as: String?.self) ?? "").split(separator: " ").map(String.init)))
            }
        }
    }

    /// Eight letters of ``userCodeAlphabet``, hyphenated in the middle.
    package static func userCode() -> String {
        var letters: [Character] = []
        while letters.count < 8 {
            // 240 is the largest multiple of 20 below 256: bytes above it are drawn again, so no letter is favoured.
            for byte in SecureRandom.bytes(16) where byte < 240 && letters.count < 8 {
                letters.append(userCodeAlphabet[Int(byte) % userCodeAlphabet.count])
            }
        }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    /// The form a user code is compared in: upper case, only the alphabet's letters (hyphens and spaces dropped).
    package static func canonical(_ code: String) -> String {
        String(code.uppercased().filter { userCodeAlphabet.contains($0) })
    }

    private static func userCodeHash(_ code: String, box: SecretBox) -> String {
        let key = SymmetricKey(data: box.derivedBytes("user code hashes"))
        return Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(canonical(code).utf8), using: key))
    }

    /// Only a pending authorization whose time has not run out can be answered.
    private func live(_ pending: Pending) -> Pending? {
        pending.status == .pending && pending.expiresAt > clock.now() ? pending : nil
    }

    private static func decode(_ row: any SQLRow) throws -> Pending {
        Pending(
            id: try row.decode(column: "id", as: String.self),
            clientID: try row.decode(column: "client_id", as: String.self),
            scopes: try row.decode(column: "scope", as: String.self).split(separator: " ").map(String.init),
            status: Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .redeemed,
            expiresAt: try row.decode(column: "expires_at", as: Int64.self))
    }

    package init(database: any Database, clock: UnixClock, box: SecretBox) {
        self.database = database
        self.clock = clock
        self.box = box
    }
}

extension DeviceAuthorizationStore {
    /// An authorization keeps an hour past expiry, so a device still polling hears `expired_token`.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "device_authorizations", key: "id", condition: "expires_at <= \(bind: now - RetentionRule.hour)")
    }
}
