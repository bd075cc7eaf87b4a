import GatehouseFoundation
import SQLKit

/// Identities at other providers, linked to accounts: one account may have several, an identity belongs to one account.
public struct FederatedIdentityStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// The purpose of the key that seals the provider's tokens an identity keeps (`keep_tokens`).
    package static let tokensPurpose = "federated identity tokens v1"

    /// A store on `database`.
    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// The account `profile`'s identity is linked to, noting that it signed in now (and its newest tokens, when kept).
    package func signIn(_ profile: UpstreamProfile) async throws -> String? {
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE federated_identities SET last_used_at = \(bind: clock.now()), sealed_tokens = COALESCE(\(bind: profile.sealedTokens), sealed_tokens)
                WHERE provider = \(bind: profile.providerID) AND subject = \(bind: profile.subject) RETURNING user_id
                """
            ).first()?.decode(column: "user_id", as: String.self)
        }
    }

    /// The account the identity `subject` at `provider` is linked to, if any, without noting a sign-in.
    package func account(provider: String, subject: String) async throws -> String? {
        try await database.read { sql in
            try await sql.raw("SELECT user_id FROM federated_identities WHERE provider = \(bind: provider) AND subject = \(bind: subject)").first()?
                .decode(column: "user_id", as: String.self)
        }
    }

    /// Links `profile`'s identity to `userID`. Throws a duplicate ``DatabaseError`` when the identity is linked already.
    package func link(_ profile: UpstreamProfile, to userID: String) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            if try await sql.raw(
                "SELECT user_id FROM federated_identities WHERE provider = \(bind: profile.providerID) AND subject = \(bind: profile.subject)"
            ).first() != nil {
                throw DatabaseError.duplicate("This \(profile.providerID) identity")
            }
            try await sql.raw(
                """
                INSERT INTO federated_identities (provider, subject, user_id, email, sealed_tokens, created_at, last_used_at)
                VALUES (\(bind: profile.providerID), \(bind: profile.subject), \(bind: userID), \(bind: profile.email), \(bind: profile.sealedTokens),
                        \(bind: now), \(bind: now))
                """
            ).run()
        }
    }

    /// The identities linked to `userID`, oldest first.
    public func identities(of userID: String) async throws -> [FederatedIdentity] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT provider, subject, user_id, email, created_at, last_used_at FROM federated_identities
                WHERE user_id = \(bind: userID) ORDER BY created_at, provider
                """
            ).all().map { row in
                FederatedIdentity(
                    providerID: try row.decode(column: "provider", as: String.self), subject: try row.decode(column: "subject", as: String.self),
                    userID: try row.decode(column: "user_id", as: String.self), email: try row.decode(column: "email", as: String?.self),
                    createdAt: try row.decode(column: "created_at", as: Int64.self), lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self))
            }
        }
    }

    /// What asking to unlink an identity did.
    public enum UnlinkOutcome: Sendable, Equatable {
        case unlinked
        case notLinked
        /// It is the account's only way to sign in: set a password or link another identity first.
        case lastWayToSignIn
    }

    /// Unlinks `userID`'s identity at `providerID`, unless the account would be left with no way to sign in (no
    /// password, no passkey, no other identity).
    public func unlink(userID: String, providerID: String) async throws -> UnlinkOutcome {
        try await database.transaction { sql in
            let linked = try await sql.raw("SELECT provider FROM federated_identities WHERE user_id = \(bind: userID)").all()
                .map { try $0.decode(column: "provider", as: String.self) }
            guard linked.contains(providerID) else { return .notLinked }
            let user = try await UserStore.find(id: userID, in: sql)
            let passkeys =
                try await sql.raw("SELECT COUNT(*) AS n FROM passkeys WHERE user_id = \(bind: userID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard linked.count > 1 || user?.hasPassword == true || passkeys > 0 else { return .lastWayToSignIn }
            try await sql.raw("DELETE FROM federated_identities WHERE user_id = \(bind: userID) AND provider = \(bind: providerID)").run()
            return .unlinked
        }
    }
}
