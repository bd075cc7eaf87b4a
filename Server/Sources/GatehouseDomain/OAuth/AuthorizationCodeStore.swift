import GatehouseFoundation
import SQLKit

/// Authorization codes: stored as SHA-256 digests, single use, short-lived.
package struct AuthorizationCodeStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// What is bound to a code besides its grant.
    package struct Binding: Sendable, Equatable {
        package var redirectURI: String
        package var nonce: String?
        package var codeChallenge: String?
        /// The DPoP key thumbprint the authorization request named (`dpop_jkt`, RFC 9449 §10): only a proof by that key
        /// redeems the code.
        package var dpopJKT: String? = nil

        package init(redirectURI: String, nonce: String? = nil, codeChallenge: String? = nil, dpopJKT: String? = nil) {
            self.redirectURI = redirectURI
            self.nonce = nonce
            self.codeChallenge = codeChallenge
            self.dpopJKT = dpopJKT
        }
    }

    package enum Redemption: Sendable, Equatable {
        case redeemed(Grant, Binding)
        /// The code was already redeemed; everything issued from it has now been revoked.
        case replayed
        /// Unknown, expired, or issued to another client.
        case invalid
    }

    package func issue(for grant: Grant, binding: Binding, lifetime: Int64) async throws -> String {
        let code = SecureRandom.token()
        let now = clock.now()
        // Consumed codes stay until the housekeeping sweep takes them (`housekeeping.replay_window` past expiry),
        // so a late replay is still recognised.
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO authorization_codes (code_hash, grant_id, client_id, user_id, redirect_uri, scope, nonce, code_challenge,
                    auth_time, amr, created_at, expires_at, dpop_jkt, resources, sid, claims)
                VALUES (\(bind: TokenDigest.hex(code)), \(bind: grant.id), \(bind: grant.clientID), \(bind: grant.userID),
                    \(bind: binding.redirectURI), \(bind: grant.scope), \(bind: binding.nonce), \(bind: binding.codeChallenge),
                    \(bind: grant.authTime), \(bind: grant.methods.joined(separator: " ")), \(bind: now), \(bind: now + lifetime),
                    \(bind: binding.dpopJKT), \(bind: grant.resources.joined(separator: " ")), \(bind: grant.sessionID),
                    \(bind: grant.storedClaims))
                """
            ).run()
            if let sid = grant.sessionID {
                try await LogoutNotificationQueue.record(sid: sid, clientID: grant.clientID, userID: grant.userID, at: now, in: sql)
            }
        }
        return code
    }

    /// The person and scopes of `code`, unspent, unexpired and issued to `clientID`, without spending it: for what must
    /// be asked before (a hook that may fail); `nil` otherwise.
    package func unspent(_ code: String, clientID: String) async throws -> (userID: String, scopes: [String])? {
        let digest = TokenDigest.hex(code)
        let now = clock.now()
        return try await database.read { sql in
            let row = try await sql.raw(
                """
                SELECT user_id, scope FROM authorization_codes
                WHERE code_hash = \(bind: digest) AND consumed_at IS NULL AND client_id = \(bind: clientID) AND expires_at > \(bind: now)
                """
            ).first()
            return try row.map {
                (try $0.decode(column: "user_id", as: String.self), try $0.decode(column: "scope", as: String.self).split(separator: " ").map(String.init))
            }
        }
    }

    /// Consumes `code` for `clientID`. The database decides atomically which of two racing redemptions wins.
    package func redeem(_ code: String, clientID: String) async throws -> Redemption {
        let digest = TokenDigest.hex(code)
        let now = clock.now()
        return try await database.transaction { sql in
            let row = try await sql.raw(
                """
                UPDATE authorization_codes SET consumed_at = \(bind: now)
                WHERE code_hash = \(bind: digest) AND consumed_at IS NULL
                RETURNING *
                """
            ).first()
            guard let row else {
                let earlier = try await sql.raw("SELECT grant_id FROM authorization_codes WHERE code_hash = \(bind: digest)").first()
                guard let earlier else { return .invalid }
                let grantID = try earlier.decode(column: "grant_id", as: String.self)
                try await GrantRevocations.revoke(grantID, extent: .everyToken, at: now, in: sql)
                return .replayed
            }
            guard try row.decode(column: "client_id", as: String.self) == clientID,
                try row.decode(column: "expires_at", as: Int64.self) > now
            else { return .invalid }
            let grant = Grant(
                id: try row.decode(column: "grant_id", as: String.self),
                clientID: clientID,
                userID: try row.decode(column: "user_id", as: String.self),
                scopes: try row.decode(column: "scope", as: String.self).split(separator: " ").map(String.init),
                authTime: try row.decode(column: "auth_time", as: Int64.self),
                methods: try row.decode(column: "amr", as: String.self).split(separator: " ").map(String.init),
                resources: try row.decode(column: "resources", as: String.self).split(separator: " ").map(String.init),
                sessionID: try row.decode(column: "sid", as: String?.self),
                requestedClaims: Grant.requestedClaims(stored: try row.decode(column: "claims", as: String?.self))
            )
            let binding = Binding(
                redirectURI: try row.decode(column: "redirect_uri", as: String.self),
                nonce: try row.decode(column: "nonce", as: String?.self),
                codeChallenge: try row.decode(column: "code_challenge", as: String?.self),
                dpopJKT: try row.decode(column: "dpop_jkt", as: String?.self)
            )
            return .redeemed(grant, binding)
        }
    }

    package init(database: any Database, clock: UnixClock) {
        self.database = database
        self.clock = clock
    }
}

extension AuthorizationCodeStore {
    /// A code lingers past expiry for `replayWindow` seconds: presenting a used one again revokes what it issued.
    package static func retention(at now: Int64, replayWindow: Int64) -> RetentionRule {
        RetentionRule(table: "authorization_codes", key: "code_hash", condition: "expires_at <= \(bind: now - replayWindow)")
    }
}
