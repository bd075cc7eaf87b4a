import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird

/// Token exchange (RFC 8693): a confidential client trades a person's token — an access token issued to it or for a
/// resource it serves, or an ID token issued to it — for an access token for another resource, as its policy
/// (``Client/tokenExchange``) allows. The new token acts for the same person in the same family (revoking the
/// person's grant revokes it), never carries a scope the subject token does not, never outlives it, and names the
/// client in `act` (delegation) unless the operator allowed impersonation.
extension TokenController {
    static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
    static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    static let idTokenType = "urn:ietf:params:oauth:token-type:id_token"
    /// The most clients an exchanged token's `act` chain names.
    static let maximumActors = 5

    func exchange(_ parameters: FormParameters, client: Client, proof: DPoPProof?) async throws -> Response {
        guard !client.isPublic else { throw OAuthError.unauthorizedClient("Only a confidential client may exchange tokens.") }
        guard let policy = client.tokenExchange else {
            throw OAuthError.unauthorizedClient("The client \(client.id) may not exchange tokens; an operator sets its token_exchange policy.")
        }
        guard let subjectToken = parameters["subject_token"], let subjectType = parameters["subject_token_type"] else {
            throw OAuthError.invalidRequest("subject_token and subject_token_type are required (RFC 8693 §2.1).")
        }
        if parameters["actor_token"] != nil {
            throw OAuthError.invalidRequest("actor_token is not supported: the authenticated client is the actor.")
        }
        if let requested = parameters["requested_token_type"], requested != Self.accessTokenType {
            throw OAuthError.invalidRequest("Only access tokens are issued by exchange (requested_token_type \(Self.accessTokenType)).")
        }
        // The target: `resource` or `audience`, one of them, naming a registered resource the policy lists.
        let targets = (parameters.allValues["resource"] ?? []) + (parameters.allValues["audience"] ?? [])
        guard targets.count == 1, let target = targets.first else {
            throw OAuthError(.invalidTarget, "Name exactly one resource or audience to exchange for.")
        }
        guard policy.audiences.contains(target), let resource = try await resources.find(named: target) else {
            throw OAuthError(.invalidTarget, "The client \(client.id) may not exchange tokens for \(target.prefix(200)).")
        }
        let audience = TokenAudience(resource: resource)
        try Self.requireProof(from: client, proof, audience: audience)

        let subject = try await self.subject(subjectToken, type: subjectType, client: client)
        // A token bound to a key is never traded for a bearer token: the new one is bound to the exchanging client's key.
        if subject.record.jkt != nil, proof == nil {
            throw OAuthError(
                .invalidDPoPProof, "The subject token is bound to a DPoP key; exchange it with a DPoP proof, and the new token is bound to that proof's key.")
        }
        let mode: String
        let actors: [String]
        if policy.delegation {
            mode = "delegation"
            actors = [client.id] + subject.record.actors
        } else if policy.impersonation {
            mode = "impersonation"
            actors = subject.record.actors
        } else {
            throw OAuthError.unauthorizedClient("The client's policy allows neither delegation nor impersonation.")
        }
        // Each exchange by delegation nests one `act` more: a chain is kept short enough to read and to check.
        guard actors.count <= Self.maximumActors else {
            throw OAuthError.invalidGrant("The subject token was exchanged by delegation \(Self.maximumActors) times already; exchange the person's own token.")
        }
        // Scopes never grow: of those asked for (or the subject's), only what the subject carries, the resource
        // accepts and the policy allows.
        let ceiling = subject.scopes.filter { resource.scopeNames.contains($0) && (policy.scopes.isEmpty || policy.scopes.contains($0)) }
        let scopes: [String]
        if let asked = parameters["scope"] {
            scopes = asked.split(separator: " ").map(String.init)
            if let grown = scopes.first(where: { !ceiling.contains($0) }) {
                throw OAuthError.invalidScope(
                    "The scope \(grown.prefix(80)) is more than the subject token carries, the resource accepts or the policy allows.")
            }
        } else {
            scopes = ceiling
        }
        // Never longer than the subject token lives.
        let lifetime = min(audience.lifetime(standard: lifetimes.accessToken), subject.expiresAt - idTokens.clock.now())
        guard lifetime > 0 else { throw OAuthError.invalidGrant("The subject token has expired.") }

        let bearer = TokenStore.MintedTokens(withRefreshToken: false, boundTo: proof?.thumbprint)
        let minted = audience.isJWT ? bearer.forJWT() : bearer
        try await database.transaction { [tokens, audit] _ in
            try await tokens.issueExchanged(
                minted, to: client.id, for: subject.record, scopes: scopes, audience: resource.id, actors: actors, lifetime: lifetime)
            try await audit.record(
                .tokenExchanged, user: subject.record.userID, client: client.id, actor: "client:\(client.id)",
                details: [
                    "mode": mode, "resource": resource.id, "scope": scopes.joined(separator: " "), "subject_client": subject.record.clientID,
                    "subject_token_type": subjectType == Self.idTokenType ? "id_token" : "access_token",
                    "subject_issuer": CompactJWS(subjectToken)?.payload["iss"] as? String ?? idTokens.issuer,
                ])
        }
        let accessToken = try await accessTokens.token(
            minted.issued.accessToken, for: audience,
            subject: .init(
                clientID: client.id, userID: subject.record.userID, authTime: subject.record.authTime, methods: subject.record.methods, actors: actors),
            scopes: scopes, jkt: proof?.thumbprint, lifetime: lifetime, notAfter: subject.expiresAt)
        return JSONResponse.make(
            TokenResponse(
                exchanged: accessToken, tokenType: proof == nil ? "Bearer" : "DPoP", expiresIn: Int(lifetime),
                scope: scopes.isEmpty ? nil : scopes.joined(separator: " "), issuedTokenType: Self.accessTokenType))
    }

    /// What the subject token says, once checked: a person's active access token issued to `client` or for a resource
    /// it serves (introspects), an unexpired ID token this server issued to `client`, or one of an identity provider
    /// the client's policy names (`subject_issuers`), for the account its identity is linked to.
    private func subject(
        _ token: String, type: String, client: Client
    ) async throws -> (record: TokenStore.AccessTokenRecord, scopes: [String], expiresAt: Int64) {
        switch type {
        case Self.accessTokenType:
            guard let record = try await tokens.activeAccessToken(token), record.userID != nil else {
                throw OAuthError.invalidGrant("The subject token is not an active access token of a person.")
            }
            var mayUse = record.clientID == client.id
            if !mayUse, let served = record.audience {
                mayUse = try await resources.find(id: served)?.introspectionClients.contains(client.id) == true
            }
            guard mayUse else {
                throw OAuthError.invalidGrant("The subject token was issued neither to this client nor for a resource it serves.")
            }
            _ = try await activeUser(record.userID ?? "")
            return (record, record.scopes, record.expiresAt)
        case Self.idTokenType:
            // An identity provider's ID token, where the policy names its issuer: for the account it is linked to.
            if let policy = client.tokenExchange, !policy.subjectIssuers.isEmpty,
                let upstream = try await upstreamTokens.account(for: token, allowedIssuers: policy.subjectIssuers)
            {
                _ = try await activeUser(upstream.userID)
                let expiresAt = Int64(upstream.claims.expiresAt.timeIntervalSince1970)
                let record = TokenStore.AccessTokenRecord(
                    clientID: client.id, userID: upstream.userID, scopes: [], issuedAt: Int64(upstream.claims.issuedAt.timeIntervalSince1970),
                    expiresAt: expiresAt, authTime: upstream.claims.authTime.map { Int64($0.timeIntervalSince1970) }, methods: ["fed"])
                return (record, policy.scopes, expiresAt)
            }
            let claims: IDTokenClaims
            do {
                claims = try await idTokens.keys.verify(token, as: IDTokenClaims.self)
            } catch {
                throw OAuthError.invalidGrant("The subject token is not an ID token this server signed.")
            }
            let now = idTokens.clock.now()
            guard claims.iss == idTokens.issuer, claims.aud == client.id, claims.exp > now else {
                throw OAuthError.invalidGrant("The ID token is expired, from another issuer, or was issued to another client.")
            }
            _ = try await activeUser(claims.sub)
            // It belongs to its sign-in: exchanged while a grant of that sign-in lives, into that grant (revoking it, or
            // signing out where that ends it, ends the exchanged token too), and once.
            guard let grantID = try await tokens.liveGrant(clientID: client.id, userID: claims.sub, authTime: claims.authTime, sid: claims.sid) else {
                throw OAuthError.invalidGrant("The sign-in this ID token is from has ended: its tokens were revoked or have expired.")
            }
            guard try await proofs.replays.recordOnce(key: "id_token_exchange|" + TokenDigest.hex(token), until: claims.exp + 60) else {
                throw OAuthError.invalidGrant("This ID token was exchanged already; an ID token is exchanged once.")
            }
            // An ID token carries no scope: what the policy lists is the ceiling (checked by the caller).
            let record = TokenStore.AccessTokenRecord(
                clientID: client.id, userID: claims.sub, scopes: [], issuedAt: claims.iat, expiresAt: claims.exp, authTime: claims.authTime,
                methods: claims.amr ?? [], grantID: grantID)
            return (record, client.tokenExchange?.scopes ?? [], claims.exp)
        default:
            throw OAuthError.invalidRequest("subject_token_type must be \(Self.accessTokenType) or \(Self.idTokenType).")
        }
    }
}
