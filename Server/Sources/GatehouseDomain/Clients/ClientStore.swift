import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Registered clients in the database.
public struct ClientStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// Registers a client. Throws a duplicate ``DatabaseError`` when the id is taken. `requirePKCE` may be `false`
    /// only for a confidential client (one with a `secret`); public clients always need PKCE.
    @discardableResult
    public func create(
        id: String, name: String? = nil, secret: String?, redirectURIs: [String], postLogoutRedirectURIs: [String] = [],
        scopes: [String], idTokenAlgorithm: String = "RS256", requirePKCE: Bool = true,
        allowDeviceGrant: Bool = false, requireDPoP: Bool = false, thirdParty: Bool = false, logoURI: String? = nil, homepage: String? = nil,
        tokenExchange: TokenExchangePolicy? = nil, authenticationMethod: ClientAuthenticationMethod? = nil, sealedSecret: String? = nil,
        jwksURI: String? = nil, jwks: JSONWebKeySet? = nil, backchannelLogoutURI: String? = nil, frontchannelLogoutURI: String? = nil,
        requireSignedRequestObject: Bool = false, requirePushedAuthorizationRequests: Bool = false, profile: SecurityProfile? = nil
    ) async throws -> Client {
        guard requirePKCE || secret != nil || jwksURI != nil || jwks != nil else {
            throw ConfigurationError("A public client always needs PKCE; only a confidential client can be exempted.")
        }
        var client = Client(
            id: id, name: name, secretHash: secret.map(TokenDigest.hex), redirectURIs: redirectURIs,
            postLogoutRedirectURIs: postLogoutRedirectURIs, scopes: scopes, idTokenAlgorithm: idTokenAlgorithm, createdAt: clock.now(),
            requiresPKCE: requirePKCE, allowsDeviceGrant: allowDeviceGrant, requiresDPoP: requireDPoP, isThirdParty: thirdParty,
            logoURI: logoURI, homepage: homepage
        )
        client.tokenExchange = tokenExchange
        client.registeredAuthenticationMethod = authenticationMethod
        client.sealedSecret = sealedSecret
        client.jwksURI = jwksURI
        client.jwks = jwks
        client.backchannelLogoutURI = backchannelLogoutURI
        client.frontchannelLogoutURI = frontchannelLogoutURI
        client.requiresSignedRequestObject = requireSignedRequestObject
        client.requiresPushedAuthorizationRequests = requirePushedAuthorizationRequests
        if let profile { client = profile.applied(to: client) }
        try await database.transaction { [client] sql in
            if try await sql.raw("SELECT id FROM clients WHERE id = \(bind: id)").first() != nil {
                throw DatabaseError.duplicate("A client with the id \(id)")
            }
            try await Self.insert(client, in: sql)
        }
        return client
    }

    /// Creates or replaces a client (used for the demo client, whose settings follow the configuration).
    package func upsert(_ client: Client) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM clients WHERE id = \(bind: client.id)").run()
            try await Self.insert(client, in: sql)
        }
    }

    public func find(id: String) async throws -> Client? {
        try await database.read { sql in try await Self.find(id: id, in: sql) }
    }

    /// ``find(id:)`` inside a transaction or read already open.
    package static func find(id: String, in sql: any SQLDatabase) async throws -> Client? {
        try await sql.raw("SELECT * FROM clients WHERE id = \(bind: id)").first().map(Self.decode)
    }

    public func list() async throws -> [Client] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM clients ORDER BY id").all().map(Self.decode)
        }
    }

    /// Changes a client's settings to `changed`, unless it is no longer `expected` (someone changed it meanwhile):
    /// then `nil`. Its id, secret and creation time stay. Tokens it holds with a scope it no longer has are revoked
    /// in the same transaction: an admin token must not outlive the removal of `gatehouse:admin`.
    package func update(_ expected: Client, to changed: Client) async throws -> Client? {
        let removed = expected.scopes.filter { !changed.scopes.contains($0) }
        let now = clock.now()
        return try await database.transaction { [database] sql in
            try await database.lock(.operatorChanges, in: sql)
            guard let current = try await Self.find(id: expected.id, in: sql), current == expected else { return nil }
            try await sql.raw(
                """
                UPDATE clients SET name = \(bind: changed.name), redirect_uris = \(bind: try JSONList.encode(changed.redirectURIs)),
                    post_logout_redirect_uris = \(bind: try JSONList.encode(changed.postLogoutRedirectURIs)),
                    scopes = \(bind: changed.scopes.joined(separator: " ")), id_token_algorithm = \(bind: changed.idTokenAlgorithm),
                    require_pkce = \(bind: changed.requiresPKCE ? 1 : 0), device_grant = \(bind: changed.allowsDeviceGrant ? 1 : 0),
                    require_dpop = \(bind: changed.requiresDPoP ? 1 : 0), third_party = \(bind: changed.isThirdParty ? 1 : 0),
                    logo_uri = \(bind: changed.logoURI), client_uri = \(bind: changed.homepage),
                    token_exchange = \(bind: try Self.encode(changed.tokenExchange)), jwks_uri = \(bind: changed.jwksURI),
                    jwks = \(bind: try Self.encode(changed.jwks)), backchannel_logout_uri = \(bind: changed.backchannelLogoutURI),
                    frontchannel_logout_uri = \(bind: changed.frontchannelLogoutURI),
                    require_signed_request = \(bind: changed.requiresSignedRequestObject ? 1 : 0),
                    require_par = \(bind: changed.requiresPushedAuthorizationRequests ? 1 : 0), profile = \(bind: changed.profile?.rawValue)
                WHERE id = \(bind: current.id)
                """
            ).run()
            if !removed.isEmpty { try await Self.revokeTokens(of: current.id, carryingAny: removed, at: now, in: sql) }
            return try await Self.find(id: current.id, in: sql)
        }
    }

    /// Gives the confidential client `id` a new secret (the old one stops working at once) and revokes every token it
    /// holds, in one transaction: a secret is rotated because it may have leaked, and whoever had it may have taken
    /// tokens. `false` when there is no such confidential client.
    /// A `client_secret_jwt` client's new secret comes `sealed` too (its old sealed copy would keep the old one working).
    package func replaceSecret(of id: String, with secret: String, sealed: String? = nil) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            let replaced =
                try await sql.raw(
                    """
                    UPDATE clients SET secret_hash = \(bind: TokenDigest.hex(secret)), secret_sealed = \(bind: sealed)
                    WHERE id = \(bind: id) AND secret_hash IS NOT NULL RETURNING id
                    """
                ).first() != nil
            if replaced { try await Self.revokeTokens(of: id, carryingAny: nil, at: now, in: sql) }
            return replaced
        }
    }

    /// Revokes the access and refresh tokens of client `id` that carry any of `scopes`, or all of them when `scopes` is nil.
    private static func revokeTokens(of id: String, carryingAny scopes: [String]?, at now: Int64, in sql: any SQLDatabase) async throws {
        let carrying: SQLQueryString = scopes.map { " AND (" + $0.map(Self.carries).joined(separator: " OR ") + ")" } ?? ""
        for table in ["access_tokens", "refresh_tokens"] {
            try await sql.raw(
                "UPDATE \(unsafeRaw: table) SET revoked_at = \(bind: now) WHERE client_id = \(bind: id) AND revoked_at IS NULL\(carrying)"
            ).run()
        }
    }

    /// The condition that a token's space-separated `scope` column holds `scope` whole (LIKE's wildcards in it escaped).
    private static func carries(_ scope: String) -> SQLQueryString {
        let escaped = scope.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        return "(' ' || scope || ' ') LIKE \(bind: "% " + escaped + " %") ESCAPE '\\'"
    }

    /// Deletes a client and revokes everything issued to it. Returns `false` when there is no such client.
    public func delete(id: String) async throws -> Bool {
        let now = clock.now()
        return try await database.transaction { sql in
            guard try await sql.raw("SELECT id FROM clients WHERE id = \(bind: id)").first() != nil else { return false }
            try await sql.raw("DELETE FROM authorization_codes WHERE client_id = \(bind: id)").run()
            try await sql.raw("DELETE FROM flows WHERE client_id = \(bind: id)").run()
            try await sql.raw("DELETE FROM device_authorizations WHERE client_id = \(bind: id)").run()
            try await sql.raw("DELETE FROM consents WHERE client_id = \(bind: id)").run()
            try await Self.revokeTokens(of: id, carryingAny: nil, at: now, in: sql)
            try await sql.raw("DELETE FROM clients WHERE id = \(bind: id)").run()
            return true
        }
    }

    package static func insert(_ client: Client, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO clients (id, name, secret_hash, redirect_uris, post_logout_redirect_uris, scopes, id_token_algorithm, created_at,
                                 require_pkce, device_grant, require_dpop, third_party, logo_uri, client_uri, dynamic, unused_expires_at,
                                 token_exchange, document_expires_at, jwks_uri, jwks, auth_method, secret_sealed, backchannel_logout_uri,
                                 frontchannel_logout_uri, require_signed_request, require_par, profile)
            VALUES (\(bind: client.id), \(bind: client.name), \(bind: client.secretHash), \(bind: try JSONList.encode(client.redirectURIs)),
                    \(bind: try JSONList.encode(client.postLogoutRedirectURIs)), \(bind: client.scopes.joined(separator: " ")),
                    \(bind: client.idTokenAlgorithm), \(bind: client.createdAt), \(bind: client.requiresPKCE ? 1 : 0),
                    \(bind: client.allowsDeviceGrant ? 1 : 0), \(bind: client.requiresDPoP ? 1 : 0), \(bind: client.isThirdParty ? 1 : 0),
                    \(bind: client.logoURI), \(bind: client.homepage), \(bind: client.registeredDynamically ? 1 : 0), \(bind: client.unusedExpiresAt),
                    \(bind: try Self.encode(client.tokenExchange)), \(bind: client.metadataDocumentExpiresAt), \(bind: client.jwksURI),
                    \(bind: try Self.encode(client.jwks)), \(bind: client.registeredAuthenticationMethod?.rawValue),
                    \(bind: client.sealedSecret), \(bind: client.backchannelLogoutURI), \(bind: client.frontchannelLogoutURI),
                    \(bind: client.requiresSignedRequestObject ? 1 : 0), \(bind: client.requiresPushedAuthorizationRequests ? 1 : 0),
                    \(bind: client.profile?.rawValue))
            """
        ).run()
    }

    /// Notes that `client` got its first token: an openly registered client is no longer removed for disuse. Nothing
    /// to do (and nothing written) for every other client.
    package func markUsed(_ client: Client) async throws {
        guard client.unusedExpiresAt != nil else { return }
        try await database.transaction { sql in
            try await sql.raw("UPDATE clients SET unused_expires_at = NULL WHERE id = \(bind: client.id)").run()
        }
    }

    package static func decode(_ row: any SQLRow) throws -> Client {
        var client = Client(
            id: try row.decode(column: "id", as: String.self),
            name: try row.decode(column: "name", as: String?.self),
            secretHash: try row.decode(column: "secret_hash", as: String?.self),
            redirectURIs: try JSONList.decode(try row.decode(column: "redirect_uris", as: String.self)),
            postLogoutRedirectURIs: try JSONList.decode(try row.decode(column: "post_logout_redirect_uris", as: String.self)),
            scopes: try row.decode(column: "scopes", as: String.self).split(separator: " ").map(String.init),
            idTokenAlgorithm: try row.decode(column: "id_token_algorithm", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Int64.self),
            requiresPKCE: try row.decode(column: "require_pkce", as: Int.self) != 0,
            allowsDeviceGrant: try row.decode(column: "device_grant", as: Int.self) != 0,
            requiresDPoP: try row.decode(column: "require_dpop", as: Int.self) != 0,
            isThirdParty: try row.decode(column: "third_party", as: Int.self) != 0,
            logoURI: try row.decode(column: "logo_uri", as: String?.self),
            homepage: try row.decode(column: "client_uri", as: String?.self)
        )
        client.registeredDynamically = try row.decode(column: "dynamic", as: Int.self) != 0
        client.unusedExpiresAt = try row.decode(column: "unused_expires_at", as: Int64?.self)
        client.metadataDocumentExpiresAt = try row.decode(column: "document_expires_at", as: Int64?.self)
        client.jwksURI = try row.decode(column: "jwks_uri", as: String?.self)
        client.jwks = try row.decode(column: "jwks", as: String?.self).map { try JSONDecoder().decode(JSONWebKeySet.self, from: Data($0.utf8)) }
        client.registeredAuthenticationMethod = try row.decode(column: "auth_method", as: String?.self).flatMap(ClientAuthenticationMethod.init)
        client.sealedSecret = try row.decode(column: "secret_sealed", as: String?.self)
        client.backchannelLogoutURI = try row.decode(column: "backchannel_logout_uri", as: String?.self)
        client.frontchannelLogoutURI = try row.decode(column: "frontchannel_logout_uri", as: String?.self)
        client.requiresSignedRequestObject = try row.decode(column: "require_signed_request", as: Int.self) != 0
        client.requiresPushedAuthorizationRequests = try row.decode(column: "require_par", as: Int.self) != 0
        client.profile = try row.decode(column: "profile", as: String?.self).flatMap(SecurityProfile.init)
        client.tokenExchange = try row.decode(column: "token_exchange", as: String?.self).map {
            try JSONDecoder().decode(TokenExchangePolicy.self, from: Data($0.utf8))
        }
        return client
    }

    /// A token exchange policy or key set as stored: JSON, or NULL for none.
    private static func encode(_ value: (some Encodable)?) throws -> String? {
        try value.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }
}

/// Lists stored as JSON text, the one list type SQLite and PostgreSQL share.
package enum JSONList {
    // Shared: a client is decoded on every token request, and each new coder is an allocation of its own.
    private static let encoder = JSONEncoder()
    private static let decoded = DecodedJSONMemo<[String]>()

    package static func encode(_ values: [String]) throws -> String {
        String(decoding: try encoder.encode(values), as: UTF8.self)
    }

    package static func decode(_ text: String) throws -> [String] {
        try decoded.decode(text)
    }
}
