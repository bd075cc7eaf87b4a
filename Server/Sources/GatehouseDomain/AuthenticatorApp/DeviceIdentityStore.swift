import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Device identities in the database. A device proves which identity it speaks for with its device secret
/// (stored as a digest); wrong PINs are counted in the identity's row by conditional updates, so no number of
/// concurrent attempts can get more PIN evaluations than the limit allows.
public struct DeviceIdentityStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// Starts a registration; returns the identity's id and its device secret (shown once, to the device).
    package func start(email: String, userID: String?, deviceName: String?, sealedOPRFKey: String, lifetime: Int64) async throws -> (id: String, secret: String)
    {
        // A UUID, like user ids: operators and the app's tool take it as an argument, and a base64url id
        // starting with "-" (1 in 64) read as an option. The device secret is what authenticates.
        let id = UUID().uuidString.lowercased()
        let secret = SecureRandom.token()
        let now = clock.now()
        try await database.transaction { sql in
            // Registrations never finished expire; the housekeeping sweep drops them.
            try await sql.raw(
                """
                INSERT INTO device_identities (id, secret_hash, user_id, email, device_name, state, sealed_oprf_key, created_at, updated_at, expires_at)
                VALUES (\(bind: id), \(bind: TokenDigest.hex(secret)), \(bind: userID), \(bind: email), \(bind: deviceName),
                        \(bind: DeviceIdentity.State.registrationStarted.rawValue), \(bind: sealedOPRFKey), \(bind: now), \(bind: now), \(bind: now + lifetime))
                """
            ).run()
        }
        return (id, secret)
    }

    /// The identity whose device secret is `secret`, unless it is an unfinished registration that expired.
    package func find(secret: String) async throws -> DeviceIdentity? {
        let now = clock.now()
        return try await database.read { sql in
            try await sql.raw(
                """
                SELECT * FROM device_identities WHERE secret_hash = \(bind: TokenDigest.hex(secret)) AND (expires_at IS NULL OR expires_at > \(bind: now))
                """
            ).first().map(Self.decode)
        }
    }

    /// The identity `id`, unless it is an unfinished registration that expired.
    public func find(id: String) async throws -> DeviceIdentity? {
        let now = clock.now()
        return try await database.read { sql in
            try await sql.raw(
                """
                SELECT * FROM device_identities WHERE id = \(bind: id) AND (expires_at IS NULL OR expires_at > \(bind: now))
                """
            ).first().map(Self.decode)
        }
    }

    /// Every identity of `userID`, or of every user, but registrations that expired unfinished; newest first.
    public func list(userID: String? = nil) async throws -> [DeviceIdentity] {
        let now = clock.now()
        return try await database.read { sql in
            let live: SQLQueryString = "(expires_at IS NULL OR expires_at > \(bind: now))"
            if let userID {
                return try await sql.raw("SELECT * FROM device_identities WHERE user_id = \(bind: userID) AND \(live) ORDER BY created_at DESC").all()
                    .map(Self.decode)
            }
            return try await sql.raw("SELECT * FROM device_identities WHERE \(live) ORDER BY created_at DESC").all().map(Self.decode)
        }
    }

    /// The email is confirmed: the identity may set its PIN. Only a registration for an existing account can be.
    package func markVerified(_ id: String) async throws -> Bool {
        try await move(id, from: .registrationStarted, to: .verified)
    }

    /// The PIN is set: the identity keeps `publicKey` and no longer expires.
    package func activate(_ id: String, publicKey: String) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE device_identities SET state = \(bind: DeviceIdentity.State.registered.rawValue), public_key = \(bind: publicKey),
                    pin_failures = 0, expires_at = NULL, updated_at = \(bind: now)
                WHERE id = \(bind: id) AND state = \(bind: DeviceIdentity.State.verified.rawValue) AND user_id IS NOT NULL RETURNING id
                """
            ).first() != nil
        }
    }

    /// Counts one PIN attempt before the server evaluates it, in one conditional statement.
    /// - Returns: the wrong PINs counted now including this one (it counts as wrong until the signature proves
    ///   otherwise), or `nil` when the identity is blocked (or not registered): nothing may be evaluated.
    package func takePINAttempt(_ id: String, limit: Int) async throws -> Int? {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE device_identities SET pin_failures = pin_failures + 1, pin_evaluations = pin_evaluations + 1, updated_at = \(bind: now)
                WHERE id = \(bind: id) AND state = \(bind: DeviceIdentity.State.registered.rawValue) AND pin_failures < \(bind: limit)
                RETURNING pin_failures
                """
            ).first().map { try $0.decode(column: "pin_failures", as: Int.self) }
        }
    }

    /// Where the registered identity `id` gets its pushes from now on (`nil` stops them); `false` when it is not
    /// registered. A token another identity had moves here: a device reinstalled keeps one token for one identity.
    package func setPush(_ id: String, to target: PushTarget?) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            if let target { try await Self.clear(target, at: now, in: sql) }
            return try await sql.raw(
                """
                UPDATE device_identities SET push_platform = \(bind: target?.platform.rawValue), push_token = \(bind: target?.token),
                    updated_at = \(bind: now)
                WHERE id = \(bind: id) AND state = \(bind: DeviceIdentity.State.registered.rawValue) RETURNING id
                """
            ).first() != nil
        }
    }

    /// Forgets `target` wherever it is registered: the platform said the token is no longer valid.
    package func forgetPush(_ target: PushTarget) async throws {
        let now = clock.now()
        try await database.transaction { sql in try await Self.clear(target, at: now, in: sql) }
    }

    /// Removes `target` from every identity that has it.
    private static func clear(_ target: PushTarget, at now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE device_identities SET push_platform = NULL, push_token = NULL, updated_at = \(bind: now)
            WHERE push_token = \(bind: target.token) AND push_platform = \(bind: target.platform.rawValue)
            """
        ).run()
    }

    /// The registered identities of `userID` that can receive a push and are not blocked after `limit` wrong PINs.
    package func pushable(userID: String, limit: Int) async throws -> [DeviceIdentity] {
        try await list(userID: userID).filter { $0.push != nil && $0.state(limit: limit) == .registered }
    }

    /// Deletes the identity; `false` when it was gone already.
    public func delete(_ id: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM device_identities WHERE id = \(bind: id) RETURNING id").first() != nil
        }
    }

    /// Unblocks an identity (an administrator's decision): its count of wrong PINs starts again.
    /// (Databases from before blocking was derived from the count may hold `blocked`; that is reset too.)
    public func unblock(_ id: String) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE device_identities SET state = \(bind: DeviceIdentity.State.registered.rawValue), pin_failures = 0, updated_at = \(bind: now)
                WHERE id = \(bind: id) AND public_key IS NOT NULL RETURNING id
                """
            ).first() != nil
        }
    }

    private func move(_ id: String, from: DeviceIdentity.State, to: DeviceIdentity.State) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE device_identities SET state = \(bind: to.rawValue), updated_at = \(bind: now)
                WHERE id = \(bind: id) AND state = \(bind: from.rawValue) AND user_id IS NOT NULL RETURNING id
                """
            ).first() != nil
        }
    }

    package static func decode(_ row: any SQLRow) throws -> DeviceIdentity {
        DeviceIdentity(
            id: try row.decode(column: "id", as: String.self),
            userID: try row.decode(column: "user_id", as: String?.self),
            email: try row.decode(column: "email", as: String.self),
            deviceName: try row.decode(column: "device_name", as: String?.self),
            state: DeviceIdentity.State(rawValue: try row.decode(column: "state", as: String.self)) ?? .blocked,
            sealedOPRFKey: try row.decode(column: "sealed_oprf_key", as: String.self),
            publicKey: try row.decode(column: "public_key", as: String?.self),
            pinFailures: try row.decode(column: "pin_failures", as: Int.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self),
            push: try row.decode(column: "push_token", as: String?.self).flatMap { token in
                try row.decode(column: "push_platform", as: String?.self).flatMap(PushPlatform.init).map { PushTarget(platform: $0, token: token) }
            }
        )
    }
}

extension DeviceIdentityStore {
    /// A pending registration that expired (active identities have no expiry).
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "device_identities", key: "id", condition: "expires_at IS NOT NULL AND expires_at <= \(bind: now)")
    }
}
