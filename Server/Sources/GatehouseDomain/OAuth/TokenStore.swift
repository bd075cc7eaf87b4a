import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Opaque access and refresh tokens, stored as SHA-256 digests. A token is active while unexpired, unrevoked,
/// and its family's grant is not in ``GrantRevocations``.
package struct TokenStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// The key each refresh token's successor is worked out with (``successor(of:prefix:)``), so that a client
    /// retrying a rotation whose answer it never received gets the same successor again
    /// (``TokenLifetimes/refreshReuseGrace``) without the successor itself being stored anywhere.
    package let successors: SymmetricKey

    package static let successorsPurpose = "refresh token successors v1"

    package init(database: any Database, clock: UnixClock, secret: ServerSecret) {
        self.database = database
        self.clock = clock
        successors = SymmetricKey(data: SecretBox(serverSecret: secret.bytes, purpose: Self.successorsPurpose).derivedBytes("successor"))
    }

    /// The refresh token that succeeds `token`, issued with the ordered `prefix` (``SecureRandom/orderedPrefix()``,
    /// kept in the used token's row): the prefix, then a digest of `token` keyed under the server secret — 256 bits no
    /// one can work out without both, and the same however often the server works it out.
    package func successor(of token: String, prefix: String) -> String {
        let digest = HMAC<SHA256>.authenticationCode(for: Data(("successor|" + token).utf8), using: successors)
        return prefix + Base64URL.encode(Data(digest))
    }

    /// An access token as the resource endpoints see it.
    package struct AccessTokenRecord: Sendable, Equatable {
        package var clientID: String
        /// `nil` for client-credentials tokens, which act for the client itself.
        package var userID: String?
        package var scopes: [String]
        package var issuedAt: Int64
        package var expiresAt: Int64
        /// The thumbprint of the key the token is bound to (RFC 9449 `cnf.jkt`), `nil` for a bearer token.
        package var jkt: String? = nil
        /// When the person signed in for the grant (`auth_time`); `nil` for a client's own token (and tokens issued
        /// before it was kept).
        package var authTime: Int64? = nil
        /// How they signed in (`amr`).
        package var methods: [String] = []
        /// The resource it was issued for (its `aud`, RFC 8707); `nil` for the server's own endpoints.
        package var audience: String? = nil
        /// The family it belongs to: revoking the person's grant revokes it too. `nil` for a client's own token.
        package var grantID: String? = nil
        /// The clients acting for the person (`act`, RFC 8693), most recent first: a token a client got by exchange.
        package var actors: [String] = []
        /// The claims the relying party asked for by name (`claims`): userinfo answers with them too.
        package var requestedClaims: ClaimsRequest? = nil
        /// The claims the hooks at `tokens` added to userinfo for it.
        package var userinfoClaims = HookClaims()

        package init(
            clientID: String, userID: String?, scopes: [String], issuedAt: Int64, expiresAt: Int64, jkt: String? = nil, authTime: Int64? = nil,
            methods: [String] = [], audience: String? = nil, grantID: String? = nil, actors: [String] = [], requestedClaims: ClaimsRequest? = nil
        ) {
            self.requestedClaims = requestedClaims
            self.clientID = clientID
            self.userID = userID
            self.scopes = scopes
            self.issuedAt = issuedAt
            self.expiresAt = expiresAt
            self.jkt = jkt
            self.authTime = authTime
            self.methods = methods
            self.audience = audience
            self.grantID = grantID
            self.actors = actors
        }
    }

    /// A refresh token's details, for introspection.
    package struct RefreshTokenRecord: Sendable, Equatable {
        package var grant: Grant
        package var issuedAt: Int64
        package var expiresAt: Int64
    }

    /// Tokens minted together.
    package struct IssuedTokens: Sendable {
        package var accessToken: String
        package var refreshToken: String?
    }

    package enum RefreshOutcome: Sendable {
        /// The new tokens, and the grant's user as of the rotation (`nil` when since deleted).
        case rotated(Grant, IssuedTokens, user: User?)
        /// The refresh token had been used before; its whole family (of `userID`'s sign-in) is now revoked.
        case replayed(userID: String?)
        /// Unknown, expired, revoked, or issued to another client.
        case invalid
    }

    /// Issues an access token for `audience` (and a refresh token when `withRefreshToken`) for a grant, bound as
    /// `minted` says when given.
    package func issue(
        for grant: Grant, withRefreshToken: Bool, lifetimes: TokenLifetimes, minted given: MintedTokens? = nil, audience: TokenAudience = .server
    ) async throws -> IssuedTokens {
        let now = clock.now()
        let minted = given ?? MintedTokens(withRefreshToken: withRefreshToken)
        return try await database.transaction { sql in
            try await Self.insert(minted, for: grant, lifetimes: lifetimes, audience: audience, now: now, in: sql)
        }
    }

    /// Issues `minted`'s access token to a client acting on its own behalf (client credentials), inside a
    /// transaction already open (the token endpoint authenticates the client in it).
    package func issueClientToken(
        clientID: String, scopes: [String], lifetime: Int64, minted: MintedTokens, audience: String? = nil, in sql: any SQLDatabase
    ) async throws -> String {
        let now = clock.now()
        try await sql.raw(
            """
            INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at, jkt, audience)
            VALUES (\(bind: minted.accessDigest), NULL, \(bind: clientID), NULL, \(bind: scopes.joined(separator: " ")),
                    \(bind: now), \(bind: now + lifetime), \(bind: minted.key), \(bind: audience))
            """
        ).run()
        return minted.issued.accessToken
    }

    /// Issues `minted`'s access token to `clientID` in exchange for a person's token (RFC 8693): for `record`'s person
    /// and family (`grantID`, so that revoking the person's grant revokes it too), with `scopes`, for `audience`, naming
    /// `actors` (`act`, most recent first; empty for impersonation), living `lifetime` seconds, and never longer than
    /// `record` (its clock read anew here may be a second on from the caller's).
    package func issueExchanged(
        _ minted: MintedTokens, to clientID: String, for record: AccessTokenRecord, scopes: [String], audience: String, actors: [String],
        lifetime: Int64
    ) async throws {
        let now = clock.now()
        let lifetime = min(lifetime, record.expiresAt - now)
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at, jkt, auth_time, amr, audience, act)
                VALUES (\(bind: minted.accessDigest), \(bind: record.grantID), \(bind: clientID), \(bind: record.userID),
                        \(bind: scopes.joined(separator: " ")), \(bind: now), \(bind: now + lifetime), \(bind: minted.key), \(bind: record.authTime),
                        \(bind: record.methods.joined(separator: " ")), \(bind: audience), \(bind: actors.isEmpty ? nil : actors.joined(separator: " ")))
                """
            ).run()
        }
    }

    /// Uses a refresh token once: marks it used and issues its successor in the same transaction, which also reads
    /// the grant's user. A used token presented again revokes the family (RFC 9700 §4.14.2).
    package func refresh(_ token: String, clientID: String, narrowedScopes: [String]?, lifetimes: TokenLifetimes) async throws -> RefreshOutcome {
        let minted = MintedTokens(withRefreshToken: false)
        return try await database.transaction { sql in
            try await refresh(token, clientID: clientID, narrowedScopes: narrowedScopes, lifetimes: lifetimes, minted: minted, in: sql)
        }
    }

    /// ``refresh(_:clientID:narrowedScopes:lifetimes:)`` inside a transaction already open, issuing `minted` for
    /// `audience`: a resource the grant's authorization named, else `invalid_target` (and nothing changes). The refresh
    /// token issued is always `token`'s successor (``successor(of:prefix:)``), whatever `minted` carries.
    package func refresh(
        _ token: String, clientID: String, narrowedScopes: [String]?, lifetimes: TokenLifetimes, minted: MintedTokens,
        audience: TokenAudience = .server, in sql: any SQLDatabase
    ) async throws -> RefreshOutcome {
        let digest = TokenDigest.storageKey(token)
        let now = clock.now()
        let prefix = SecureRandom.orderedPrefix()
        let minted = minted.withRefreshToken(successor(of: token, prefix: prefix))
        let rotation = Rotation(digest: digest, clientID: clientID, lifetimes: lifetimes, minted: minted, successorPrefix: prefix, now: now)
        guard let used = try await rotation.stepByStep(in: sql) else {
            let earlier = try await sql.raw(
                """
                SELECT grant_id, user_id, used_at, revoked_at, successor_prefix FROM refresh_tokens
                WHERE token_hash = \(bind: digest) AND client_id = \(bind: clientID)
                """
            ).first()
            if let earlier, let usedAt = try earlier.decode(column: "used_at", as: Int64?.self) {
                if lifetimes.refreshReuseGrace > 0, now - usedAt <= lifetimes.refreshReuseGrace,
                    try earlier.decode(column: "revoked_at", as: Int64?.self) == nil,
                    let successorPrefix = try earlier.decode(column: "successor_prefix", as: String?.self),
                    let retried = try await answerAgain(
                        successor(of: token, prefix: successorPrefix), clientID: clientID, narrowedScopes: narrowedScopes, lifetimes: lifetimes,
                        minted: minted, audience: audience, now: now, in: sql)
                {
                    return retried
                }
                try await GrantRevocations.revoke(try earlier.decode(column: "grant_id", as: String.self), extent: .everyToken, at: now, in: sql)
                return .replayed(userID: try earlier.decode(column: "user_id", as: String?.self))
            }
            return .invalid
        }
        // An expired token is marked used but issues nothing.
        guard used.expiresAt > now else { return .invalid }
        var grant = used.grant
        // Throwing rolls the transaction back: the refresh token stays usable.
        try Self.requireNamed(audience, by: grant)
        if let narrowedScopes {
            // Throwing rolls the transaction back, so the refresh token stays usable and nothing is issued.
            if let extra = narrowedScopes.first(where: { !grant.scopes.contains($0) }) {
                throw OAuthError.invalidScope("The scope \(extra) was not granted originally.")
            }
            grant.scopes = narrowedScopes
        }
        _ = try await Self.insert(minted, for: grant, lifetimes: lifetimes, audience: audience, now: now, in: sql)
        // Read here rather than afterwards on a read connection: the writer's page cache stays warm, while a
        // read connection starts each read after a commit with an empty one.
        return .rotated(grant, minted.issued, user: try await UserStore.find(id: grant.userID, in: sql))
    }

    /// A refresh token used moments ago presented again by its client: when its `successor` is still unused — the
    /// client never received the answer that carried it (a timeout, a connection lost, a database that blinked) — the
    /// same successor is answered again with a new access token, and the family lives on (as Auth0's and Okta's reuse
    /// intervals do). `nil` when the successor was used, or is bound to another key: then it is a replay. An `invalid`
    /// outcome when the retry asks for other scopes than the successor has: refused, nothing revoked.
    private func answerAgain(
        _ successor: String, clientID: String, narrowedScopes: [String]?, lifetimes: TokenLifetimes, minted: MintedTokens, audience: TokenAudience,
        now: Int64, in sql: any SQLDatabase
    ) async throws -> RefreshOutcome? {
        guard
            let row = try await sql.raw(
                """
                SELECT * FROM refresh_tokens
                WHERE token_hash = \(bind: TokenDigest.storageKey(successor)) AND client_id = \(bind: clientID) AND used_at IS NULL AND revoked_at IS NULL
                  AND expires_at > \(bind: now) AND (jkt IS NULL OR jkt = \(bind: minted.key)) AND \(GrantRevocations.familyIsActive("refresh_tokens"))
                """
            ).first()
        else { return nil }
        let grant = try Self.decodeGrant(row)
        if let narrowedScopes, Set(narrowedScopes) != Set(grant.scopes) { return .invalid }
        try Self.requireNamed(audience, by: grant)
        var again = MintedTokens(withRefreshToken: false, boundTo: minted.key)
        if audience.isJWT { again = again.forJWT() }
        _ = try await Self.insert(again, for: grant, lifetimes: lifetimes, audience: audience, now: now, in: sql)
        return .rotated(
            grant, IssuedTokens(accessToken: again.issued.accessToken, refreshToken: successor), user: try await UserStore.find(id: grant.userID, in: sql))
    }

    /// The common refresh — an unused, active token of a grant that named no resource, no narrower scope, a token for the
    /// server — as the one statement closing an
    /// ``Database/autocommit(_:)`` body, where the engine does that in one statement (PostgreSQL). `nil` when it
    /// does not, or when the token is not such a token: then ``refresh(_:clientID:narrowedScopes:lifetimes:minted:in:)``
    /// in a transaction says why (expired, replayed, unknown), having marked nothing.
    package func rotateInOneStatement(
        _ token: String, clientID: String, lifetimes: TokenLifetimes, minted: MintedTokens, in sql: any SQLDatabase
    ) async throws -> RefreshOutcome? {
        guard database.engine == .postgresql else { return nil }
        let now = clock.now()
        let prefix = SecureRandom.orderedPrefix()
        let rotation = Rotation(
            digest: TokenDigest.storageKey(token), clientID: clientID, lifetimes: lifetimes,
            minted: minted.withRefreshToken(successor(of: token, prefix: prefix)), successorPrefix: prefix, now: now)
        guard let used = try await rotation.inOneStatement(in: sql) else { return nil }
        return .rotated(used.grant, rotation.minted.issued, user: used.user)
    }

    /// One refresh token's rotation: marking it used, and issuing its successors.
    private struct Rotation {
        let digest: String
        let clientID: String
        let lifetimes: TokenLifetimes
        let minted: MintedTokens
        /// The successor's ordered prefix, kept with the used token so that a retry can work the successor out again.
        let successorPrefix: String
        let now: Int64

        /// The token as it was when marked used.
        struct Used {
            var grant: Grant
            var expiresAt: Int64
            /// The grant's user, when read with the rotation.
            var user: User?
        }

        /// Marks the token used; the caller inserts the new tokens. `nil` when the token is not an unused, active one.
        func stepByStep(in sql: any SQLDatabase) async throws -> Used? {
            let row = try await sql.raw(
                """
                UPDATE refresh_tokens SET used_at = \(bind: now), successor_prefix = \(bind: successorPrefix)
                WHERE token_hash = \(bind: digest) AND client_id = \(bind: clientID) AND used_at IS NULL AND revoked_at IS NULL
                  AND (jkt IS NULL OR jkt = \(bind: minted.key)) AND \(GrantRevocations.familyIsActive("refresh_tokens"))
                RETURNING *
                """
            ).first()
            guard let row else { return nil }
            return Used(grant: try TokenStore.decodeGrant(row), expiresAt: try row.decode(column: "expires_at", as: Int64.self))
        }

        /// Marks the token used, inserts the new tokens and reads the user, in one PostgreSQL statement
        /// (data-modifying CTEs); `nil`, having changed nothing, unless the token is unused, active and unexpired.
        func inOneStatement(in sql: any SQLDatabase) async throws -> Used? {
            guard let refreshDigest = minted.refreshDigest else { return nil }
            let row = try await sql.raw(
                """
                WITH used AS (
                    UPDATE refresh_tokens SET used_at = \(bind: now), successor_prefix = \(bind: successorPrefix)
                    WHERE token_hash = \(bind: digest) AND client_id = \(bind: clientID) AND used_at IS NULL AND revoked_at IS NULL
                      AND expires_at > \(bind: now) AND (jkt IS NULL OR jkt = \(bind: minted.key)) AND resources = ''
                      AND \(GrantRevocations.familyIsActive("refresh_tokens"))
                    RETURNING grant_id, client_id, user_id, scope, auth_time, amr, resources, expires_at, sid, claims
                ), access AS (
                    INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at, jkt, auth_time, amr, claims)
                    SELECT \(bind: minted.accessDigest), grant_id, client_id, user_id, scope, \(bind: now), \(bind: now + lifetimes.accessToken),
                           \(bind: minted.key), auth_time, amr, claims
                    FROM used
                ), refresh AS (
                    INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, amr, created_at, expires_at, jkt, sid, claims)
                    SELECT \(bind: refreshDigest), grant_id, client_id, user_id, scope, auth_time, amr, \(bind: now), \(bind: now + lifetimes.refreshToken),
                           \(bind: minted.refreshKey), sid, claims
                    FROM used
                )
                SELECT used.grant_id, used.client_id, used.user_id, used.scope, used.auth_time, used.amr, used.resources, used.sid, used.claims,
                       used.expires_at AS token_expires_at, u.*
                FROM used LEFT JOIN users u ON u.id = used.user_id
                """
            ).first()
            guard let row else { return nil }
            let user = try row.decode(column: "id", as: String?.self) == nil ? nil : try UserStore.decode(row)
            return Used(
                grant: try TokenStore.decodeGrant(row), expiresAt: try row.decode(column: "token_expires_at", as: Int64.self), user: user)
        }
    }

    /// The active access token, or `nil` when unknown, expired or revoked.
    package func activeAccessToken(_ token: String) async throws -> AccessTokenRecord? {
        try await activeAccessTokenWithUser(token)?.token
    }

    /// The active access token together with its user (`nil` for a client's own token, or a user since
    /// deleted), in one query: the userinfo endpoint's whole read.
    package func activeAccessTokenWithUser(_ token: String) async throws -> (token: AccessTokenRecord, user: User?)? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT t.client_id AS token_client_id, t.user_id AS token_user_id, t.scope AS token_scope,
                       t.created_at AS token_created_at, t.expires_at AS token_expires_at, t.jkt AS token_jkt,
                       t.auth_time AS token_auth_time, t.amr AS token_amr, t.audience AS token_audience, t.grant_id AS token_grant_id,
                       t.act AS token_act, t.claims AS token_claims, t.hook_claims AS token_hook_claims, u.*
                FROM access_tokens t LEFT JOIN users u ON u.id = t.user_id
                WHERE t.token_hash IN (\(binds: Self.accessTokenKeys(token))) AND t.revoked_at IS NULL AND t.expires_at > \(bind: now)
                  AND \(GrantRevocations.familyIsActive("t"))
                """
            ).first()
        }
        guard let row else { return nil }
        var record = AccessTokenRecord(
            clientID: try row.decode(column: "token_client_id", as: String.self),
            userID: try row.decode(column: "token_user_id", as: String?.self),
            scopes: try row.decode(column: "token_scope", as: String.self).split(separator: " ").map(String.init),
            issuedAt: try row.decode(column: "token_created_at", as: Int64.self),
            expiresAt: try row.decode(column: "token_expires_at", as: Int64.self),
            jkt: try row.decode(column: "token_jkt", as: String?.self),
            authTime: try row.decode(column: "token_auth_time", as: Int64?.self),
            methods: (try row.decode(column: "token_amr", as: String?.self) ?? "").split(separator: " ").map(String.init),
            audience: try row.decode(column: "token_audience", as: String?.self),
            grantID: try row.decode(column: "token_grant_id", as: String?.self),
            actors: (try row.decode(column: "token_act", as: String?.self) ?? "").split(separator: " ").map(String.init),
            requestedClaims: Grant.requestedClaims(stored: try row.decode(column: "token_claims", as: String?.self))
        )
        record.userinfoClaims = HookClaims(storedJSON: try row.decode(column: "token_hook_claims", as: String?.self))
        let user = try row.decode(column: "id", as: String?.self) == nil ? nil : try UserStore.decode(row)
        return (record, user)
    }

    /// The id of a live grant (a family with an active access or refresh token) of the sign-in at `authTime` by `userID`
    /// to `clientID`, in the browser session `sid` when one is named: what an ID token of that sign-in belongs to.
    /// `nil` when every grant of it was revoked or has expired.
    package func liveGrant(clientID: String, userID: String, authTime: Int64?, sid: String?) async throws -> String? {
        let now = clock.now()
        let sameSignIn: SQLQueryString =
            "client_id = \(bind: clientID) AND user_id = \(bind: userID) AND auth_time = \(bind: authTime ?? -1) AND grant_id IS NOT NULL"
        let inSession: SQLQueryString = sid.map { "AND sid = \(bind: $0)" } ?? ""
        return try await database.read { sql in
            let refreshed = try await sql.raw(
                """
                SELECT grant_id FROM refresh_tokens WHERE \(sameSignIn) \(inSession)
                AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(bind: now) AND \(GrantRevocations.familyIsActive("refresh_tokens"))
                LIMIT 1
                """
            ).first()
            if let refreshed { return try refreshed.decode(column: "grant_id", as: String.self) }
            let accessed = try await sql.raw(
                """
                SELECT grant_id FROM access_tokens WHERE \(sameSignIn) AND revoked_at IS NULL AND expires_at > \(bind: now)
                AND \(GrantRevocations.familyIsActive("access_tokens")) LIMIT 1
                """
            ).first()
            return try accessed?.decode(column: "grant_id", as: String.self)
        }
    }

    /// The active (unused, unrevoked, unexpired) refresh token, or `nil`.
    package func activeRefreshToken(_ token: String) async throws -> RefreshTokenRecord? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT * FROM refresh_tokens WHERE token_hash = \(bind: TokenDigest.storageKey(token))
                AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(bind: now) AND \(GrantRevocations.familyIsActive("refresh_tokens"))
                """
            ).first()
        }
        guard let row else { return nil }
        return RefreshTokenRecord(
            grant: try Self.decodeGrant(row),
            issuedAt: try row.decode(column: "created_at", as: Int64.self),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self)
        )
    }

    /// Revokes a token presented by `clientID` (RFC 7009). A refresh token takes its whole family with it.
    /// Tokens of other clients and unknown tokens are left alone; the endpoint answers 200 either way.
    package func revoke(_ token: String, clientID: String) async throws {
        let digest = TokenDigest.storageKey(token)
        let now = clock.now()
        try await database.transaction { sql in
            // The family's newest refresh token, revoked itself, leaves only access tokens to outlive; an older
            // one leaves the newest unknown.
            if let newest = try await sql.raw(
                """
                UPDATE refresh_tokens SET revoked_at = \(bind: now)
                WHERE token_hash = \(bind: digest) AND client_id = \(bind: clientID) AND used_at IS NULL AND revoked_at IS NULL
                RETURNING grant_id
                """
            ).first() {
                try await GrantRevocations.revoke(try newest.decode(column: "grant_id", as: String.self), extent: .accessTokens, at: now, in: sql)
                return
            }
            if let older = try await sql.raw(
                """
                SELECT grant_id FROM refresh_tokens WHERE token_hash = \(bind: digest) AND client_id = \(bind: clientID)
                """
            ).first() {
                try await GrantRevocations.revoke(try older.decode(column: "grant_id", as: String.self), extent: .everyToken, at: now, in: sql)
                return
            }
            try await sql.raw(
                """
                UPDATE access_tokens SET revoked_at = \(bind: now)
                WHERE token_hash IN (\(binds: Self.accessTokenKeys(token))) AND client_id = \(bind: clientID) AND revoked_at IS NULL
                """
            ).run()
        }
    }

    /// New tokens and the digests stored for them, made before the write transaction: its writer is the one
    /// resource every token request waits for in turn.
    package struct MintedTokens: Sendable {
        package private(set) var issued: IssuedTokens
        package private(set) var accessDigest: String
        package private(set) var refreshDigest: String?
        /// The thumbprint of the DPoP key the access token is bound to (RFC 9449), `nil` for bearer tokens. A refresh
        /// presents it too: a bound refresh token is used only with its key.
        package let key: String?
        /// The key the refresh token is bound to: a public client's (a confidential client's refresh tokens are bound
        /// by its authentication instead, RFC 9449 §5).
        package private(set) var refreshKey: String?

        package init(withRefreshToken: Bool, boundTo key: String? = nil, bindingRefreshToken: Bool = false) {
            issued = IssuedTokens(accessToken: SecureRandom.orderedToken(), refreshToken: withRefreshToken ? SecureRandom.orderedToken() : nil)
            accessDigest = TokenDigest.storageKey(issued.accessToken)
            refreshDigest = issued.refreshToken.map(TokenDigest.storageKey)
            self.key = key
            refreshKey = bindingRefreshToken ? key : nil
        }

        /// These tokens with `refreshToken` as their refresh token: a rotation's successor, worked out from the token
        /// it replaces (``TokenStore/successor(of:prefix:)``).
        package func withRefreshToken(_ refreshToken: String) -> MintedTokens {
            var minted = self
            minted.issued.refreshToken = refreshToken
            minted.refreshDigest = TokenDigest.storageKey(refreshToken)
            return minted
        }

        /// These tokens with the access token a JWT (RFC 9068) whose `jti` is the random token: the row is stored under
        /// ``TokenStore/accessTokenKey(_:)`` of the JWT, and the caller signs the JWT once the row is written.
        package func forJWT() -> MintedTokens {
            var minted = self
            minted.accessDigest = TokenStore.jwtKey(id: issued.accessToken)
            return minted
        }

        /// These tokens as `client` gets them: its refresh token bound to the key only when it is a public client.
        package func issued(to client: Client) -> MintedTokens {
            var minted = self
            if !client.isPublic { minted.refreshKey = nil }
            return minted
        }
    }

    private static func insert(
        _ minted: MintedTokens, for grant: Grant, lifetimes: TokenLifetimes, audience: TokenAudience, now: Int64, in sql: any SQLDatabase
    ) async throws -> IssuedTokens {
        try await sql.raw(
            """
            INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at, jkt, auth_time, amr, audience, claims)
            VALUES (\(bind: minted.accessDigest), \(bind: grant.id), \(bind: grant.clientID), \(bind: grant.userID),
                    \(bind: audience.scopes(of: grant.scopes).joined(separator: " ")), \(bind: now),
                    \(bind: now + audience.lifetime(standard: lifetimes.accessToken)), \(bind: minted.key),
                    \(bind: grant.authTime), \(bind: grant.methods.joined(separator: " ")), \(bind: audience.identifier), \(bind: grant.storedClaims))
            """
        ).run()
        guard let refreshDigest = minted.refreshDigest else { return minted.issued }
        try await sql.raw(
            """
            INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, amr, created_at, expires_at, jkt, resources, sid,
                                        claims)
            VALUES (\(bind: refreshDigest), \(bind: grant.id), \(bind: grant.clientID), \(bind: grant.userID),
                    \(bind: grant.scope), \(bind: grant.authTime), \(bind: grant.methods.joined(separator: " ")), \(bind: now),
                    \(bind: now + lifetimes.refreshToken), \(bind: minted.refreshKey), \(bind: grant.resources.joined(separator: " ")),
                    \(bind: grant.sessionID), \(bind: grant.storedClaims))
            """
        ).run()
        return minted.issued
    }

    /// `invalid_target` unless `audience` is the server, or a resource the grant's authorization named (RFC 8707 §2.2).
    package static func requireNamed(_ audience: TokenAudience, by grant: Grant) throws {
        if let resource = audience.identifier, !grant.resources.contains(resource) {
            throw OAuthError(.invalidTarget, "The resource \(resource) was not named by the authorization request; ask for it there first.")
        }
    }

    /// The key an access token's row is stored under: the digest of an opaque token, or of a JWT's `jti` (a JWT access
    /// token is made after its row, and is read back by its `jti` alone: the row, not the JWT, says whether it is active).
    /// Keeps with the access token `token`, just issued, the claims the hooks added to userinfo for it.
    package func keepUserinfoClaims(_ claims: HookClaims, for token: String) async throws {
        let key = Self.accessTokenKey(token)
        let stored = claims.storedJSON
        try await database.autocommit { sql in
            try await sql.raw("UPDATE access_tokens SET hook_claims = \(bind: stored) WHERE token_hash = \(bind: key)").run()
        }
    }

    package static func accessTokenKey(_ token: String) -> String {
        if let id = AccessTokenClaims.unverifiedID(of: token) { return jwtKey(id: id) }
        return TokenDigest.storageKey(token)
    }

    /// The keys an access token's row may be stored under: ``accessTokenKey(_:)``, and for a JWT also the key its row
    /// had before JWT keys kept the issue-time prefix (``legacyJWTKey(id:)``), while such tokens may still live.
    package static func accessTokenKeys(_ token: String) -> [String] {
        guard let id = AccessTokenClaims.unverifiedID(of: token) else { return [TokenDigest.storageKey(token)] }
        // One digest for both: the key is the legacy key behind the jti's prefix, when it has one.
        let legacy = legacyJWTKey(id: id)
        guard let prefix = TokenDigest.orderedPrefix(of: id) else { return [legacy] }
        return [String(prefix) + legacy, legacy]
    }

    /// The row key of the JWT access token whose `jti` is `id`: never that of an opaque token, so the `jti` alone is no
    /// token. The `jti`'s issue-time prefix comes first, as in an opaque token's key: rows then land at the end of the
    /// index, where a key that is only a digest put each insert on a random page (measured: 1.6 times an opaque token's
    /// SQLite work per grant).
    package static func jwtKey(id: String) -> String {
        String(TokenDigest.orderedPrefix(of: id) ?? "") + legacyJWTKey(id: id)
    }

    /// ``jwtKey(id:)`` as it was before it kept the prefix: the digest alone.
    package static func legacyJWTKey(id: String) -> String {
        TokenDigest.hex("jwt:" + id)
    }

    fileprivate static func decodeGrant(_ row: any SQLRow) throws -> Grant {
        Grant(
            id: try row.decode(column: "grant_id", as: String.self),
            clientID: try row.decode(column: "client_id", as: String.self),
            userID: try row.decode(column: "user_id", as: String.self),
            scopes: try row.decode(column: "scope", as: String.self).split(separator: " ").map(String.init),
            authTime: try row.decode(column: "auth_time", as: Int64.self),
            methods: try row.decode(column: "amr", as: String.self).split(separator: " ").map(String.init),
            resources: try row.decode(column: "resources", as: String.self).split(separator: " ").map(String.init),
            sessionID: try row.decode(column: "sid", as: String?.self),
            requestedClaims: Grant.requestedClaims(stored: try row.decode(column: "claims", as: String?.self))
        )
    }
}

extension TokenStore {
    /// Expired access tokens go at once; a used refresh token is kept until it expires: presenting it again until then
    /// revokes its family.
    package static func retention(at now: Int64) -> [RetentionRule] {
        [
            RetentionRule(table: "access_tokens", key: "token_hash", condition: "expires_at <= \(bind: now)"),
            RetentionRule(table: "refresh_tokens", key: "token_hash", condition: "expires_at <= \(bind: now)"),
        ]
    }
}
