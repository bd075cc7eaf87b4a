import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Passkeys in the database. Credential ids are unique across users, counters move forward by compare-and-set, and
/// every user's WebAuthn user handle is random (the user id is never given to authenticators).
public struct PasskeyStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// A store on `database`.
    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// The user handle of `userID`, made (32 random bytes) the first time it is asked for.
    package func userHandle(for userID: String) async throws -> [UInt8] {
        let read = { @Sendable (sql: any SQLDatabase) in
            try await sql.raw("SELECT passkey_user_handle FROM users WHERE id = \(bind: userID)").first()?
                .decode(column: "passkey_user_handle", as: String?.self)
        }
        // Only a user's first passkey writes: the handle is read otherwise.
        if let text = try await database.read(read), let handle = Base64URL.decode(text) { return Array(handle) }
        let made = SecureRandom.token()
        return try await database.transaction { sql in
            // Only a user without one gets the new handle; two concurrent first asks agree on the one written first.
            try await sql.raw(
                "UPDATE users SET passkey_user_handle = \(bind: made) WHERE id = \(bind: userID) AND passkey_user_handle IS NULL"
            ).run()
            guard let text = try await read(sql), let handle = Base64URL.decode(text) else {
                throw DatabaseError.notFound("A user with the id \(userID)")
            }
            return Array(handle)
        }
    }

    /// The user whose handle is `handle`, as a discoverable passkey's assertion names it.
    package func userID(forHandle handle: [UInt8]) async throws -> String? {
        try await database.read { sql in
            try await sql.raw("SELECT id FROM users WHERE passkey_user_handle = \(bind: Base64URL.encode(handle))").first()?
                .decode(column: "id", as: String.self)
        }
    }

    /// Stores a verified registration for `userID`. Throws a duplicate ``DatabaseError`` when the credential id is
    /// already registered, to this user or another.
    package func add(userID: String, registration: RelyingParty.Registration, name: String, transports: [String]) async throws -> Passkey {
        let passkey = Passkey(
            id: UUID().uuidString.lowercased(), userID: userID, credentialID: registration.credentialID, publicKey: registration.publicKey,
            signCount: registration.signCount, aaguid: registration.aaguid.map { String(format: "%02x", $0) }.joined(),
            userVerified: registration.userVerified, backupEligible: registration.backupEligible, backedUp: registration.backedUp,
            attestation: registration.attestation.name, transports: transports, name: name, createdAt: clock.now(), lastUsedAt: nil)
        let transportsJSON = String(decoding: try JSONEncoder().encode(transports), as: UTF8.self)
        try await database.transaction { sql in
            // ON CONFLICT rather than a look first: two registrations of one credential at once (two tabs, two nodes)
            // both pass a look, and the second insert then breaks the unique index; here it inserts nothing.
            let inserted = try await sql.raw(
                """
                INSERT INTO passkeys (id, user_id, credential_id, public_key, sign_count, aaguid, user_verified, backup_eligible, backed_up,
                                      attestation, transports, name, created_at)
                VALUES (\(bind: passkey.id), \(bind: userID), \(bind: Base64URL.encode(passkey.credentialID)),
                        \(bind: Base64URL.encode(passkey.publicKey.encoded)),
                        \(bind: Int64(passkey.signCount)), \(bind: passkey.aaguid), \(bind: passkey.userVerified ? 1 : 0),
                        \(bind: passkey.backupEligible ? 1 : 0), \(bind: passkey.backedUp ? 1 : 0), \(bind: passkey.attestation),
                        \(bind: transportsJSON), \(bind: name), \(bind: passkey.createdAt))
                ON CONFLICT (credential_id) DO NOTHING
                RETURNING id
                """
            ).first()
            guard inserted != nil else { throw DatabaseError.duplicate("A passkey with this credential id") }
        }
        return passkey
    }

    /// The passkey with `credentialID`, whoever's it is.
    package func find(credentialID: [UInt8]) async throws -> Passkey? {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM passkeys WHERE credential_id = \(bind: Base64URL.encode(credentialID))").first().map(Self.passkey)
        }
    }

    /// `userID`'s passkeys, oldest first (by name within a second).
    public func list(userID: String) async throws -> [Passkey] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM passkeys WHERE user_id = \(bind: userID) ORDER BY created_at, name, id").all().map(Self.passkey)
        }
    }

    /// Records a verified assertion: the new counter, backup state and use time. The counter moves only from the
    /// value the assertion was checked against, so of two concurrent uses that both passed the check only one
    /// counts; returns whether this one did.
    package func recordUse(of passkey: Passkey, assertion: RelyingParty.Assertion) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE passkeys SET sign_count = \(bind: Int64(assertion.signCount)), backed_up = \(bind: assertion.backedUp ? 1 : 0),
                       user_verified = CASE WHEN \(bind: assertion.userVerified ? 1 : 0) = 1 THEN 1 ELSE user_verified END,
                       last_used_at = \(bind: now)
                WHERE id = \(bind: passkey.id) AND sign_count = \(bind: Int64(passkey.signCount))
                RETURNING id
                """
            ).first() != nil
        }
    }

    /// Renames one of `userID`'s passkeys; `false` when it has none with `id`.
    public func rename(_ id: String, of userID: String, to name: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.raw("UPDATE passkeys SET name = \(bind: name) WHERE id = \(bind: id) AND user_id = \(bind: userID) RETURNING id").first() != nil
        }
    }

    /// Removes one of `userID`'s passkeys; `false` when it has none with `id`.
    public func remove(_ id: String, of userID: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM passkeys WHERE id = \(bind: id) AND user_id = \(bind: userID) RETURNING id").first() != nil
        }
    }

    private static func passkey(_ row: any SQLRow) throws -> Passkey {
        let credentialID = try row.decode(column: "credential_id", as: String.self)
        let publicKey = try row.decode(column: "public_key", as: String.self)
        guard let idBytes = Base64URL.decode(credentialID), let keyBytes = Base64URL.decode(publicKey) else {
            throw DatabaseError.corrupt("A passkey's credential id or public key is not base64url")
        }
        let transports = try JSONDecoder().decode([String].self, from: Data(try row.decode(column: "transports", as: String.self).utf8))
        return Passkey(
            id: try row.decode(column: "id", as: String.self), userID: try row.decode(column: "user_id", as: String.self),
            credentialID: Array(idBytes), publicKey: try COSEKey(encoded: Array(keyBytes)),
            signCount: UInt32(clamping: try row.decode(column: "sign_count", as: Int64.self)), aaguid: try row.decode(column: "aaguid", as: String.self),
            userVerified: try row.decode(column: "user_verified", as: Int.self) != 0,
            backupEligible: try row.decode(column: "backup_eligible", as: Int.self) != 0,
            backedUp: try row.decode(column: "backed_up", as: Int.self) != 0, attestation: try row.decode(column: "attestation", as: String.self),
            transports: transports, name: try row.decode(column: "name", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self), lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self))
    }
}
