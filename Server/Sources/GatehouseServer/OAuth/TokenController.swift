import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird
import Logging

/// The token endpoint (RFC 6749 §3.2): authorization_code, refresh_token, client_credentials and device_code (RFC 8628) grants.
struct TokenController: Sendable {
    let clients: ClientStore
    /// Authenticates the calling client: a secret, an assertion, or none for a public client.
    let authenticator: ClientAuthenticator
    let resources: ResourceStore
    let codes: AuthorizationCodeStore
    let tokens: TokenStore
    let users: UserStore
    let deviceAuthorizations: DeviceAuthorizationStore
    let audit: AuditLog
    /// Where a redemption and its audit event commit together.
    let database: any Database
    /// Made once: every token response with `openid` uses it.
    let idTokens: IDTokenIssuer
    /// Signs the access tokens of resources that take JWTs.
    let accessTokens: AccessTokenSigner
    /// The operator's hooks asked before a person's tokens are issued, for claims of their own.
    let hooks: TokenHooks
    /// Identity providers' ID tokens, which a token exchange policy may accept as subject tokens.
    let upstreamTokens: UpstreamSubjectTokens
    let proofs: DPoPProofCheck
    /// How long what this endpoint issues lives (`token_lifetimes`).
    let lifetimes: TokenLifetimes
    let logger: Logger

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post("/token") { request, _ in try await token(request) }
    }

    func token(_ request: Request) async throws -> Response {
        let parameters = try await FormParameters.body(of: request)
        if let repeated = parameters.repeatedName {
            throw OAuthError.invalidRequest("The parameter \(repeated) appears more than once.")
        }
        let credentials = try await authenticator.credentials(of: request, parameters: parameters, path: "/token")
        let proof: DPoPProof?
        do {
            proof = try await proofs.proof(of: request, path: "/token")
        } catch {
            throw proofs.tokenEndpointError(error)
        }
        if let named = parameters.allValues["resource"], named.count > 1 {
            throw OAuthError(.invalidTarget, "Name one resource per token request (RFC 8707 §2.2); ask again for each of the others.")
        }
        var response = try await grant(parameters, credentials: credentials, proof: proof)
        if proof != nil, let nonces = proofs.nonces { response.headers[.dpopNonce] = nonces.current }
        return response
    }

    /// The grant `grant_type` names, with the request's checked DPoP proof, if any.
    private func grant(_ parameters: FormParameters, credentials: ClientAuthenticator.Credentials, proof: DPoPProof?) async throws -> Response {
        // The refresh and client-credentials grants look the client up inside their write transaction: a read
        // connection would start with an empty page cache after each of the other requests' commits.
        switch parameters["grant_type"] {
        case "authorization_code":
            return GatehouseMetrics.issued(
                "authorization_code", try await authorizationCode(parameters, client: try await authenticate(credentials), proof: proof))
        case "refresh_token":
            return GatehouseMetrics.issued("refresh_token", try await refreshToken(parameters, credentials: credentials, proof: proof))
        case "client_credentials":
            return GatehouseMetrics.issued("client_credentials", try await clientCredentials(parameters, credentials: credentials, proof: proof))
        case DeviceAuthorizationController.grantType:
            return GatehouseMetrics.issued("device_code", try await deviceCode(parameters, client: try await authenticate(credentials), proof: proof))
        case Self.tokenExchange:
            return GatehouseMetrics.issued("token_exchange", try await exchange(parameters, client: try await authenticate(credentials), proof: proof))
        case nil:
            _ = try await authenticate(credentials)
            throw OAuthError.invalidRequest("grant_type is missing.")
        case let other?:
            _ = try await authenticate(credentials)
            throw OAuthError.unsupportedGrantType(
                "The grant type \(other) is not supported; use authorization_code, refresh_token, client_credentials, \(DeviceAuthorizationController.grantType) or \(Self.tokenExchange)."
            )
        }
    }

    private func authenticate(_ credentials: ClientAuthenticator.Credentials) async throws -> Client {
        try await authenticator.authenticate(credentials)
    }

    /// The tokens to mint for `client`: bound to the proof's key when there is one, its refresh token too when it is a
    /// public client; the access token a JWT's `jti` when `audience` takes JWTs. Callers check
    /// ``requireProof(from:_:audience:)`` first, before a code is spent.
    static func minted(withRefreshToken: Bool, for client: Client, proof: DPoPProof?, audience: TokenAudience) -> TokenStore.MintedTokens {
        let minted = TokenStore.MintedTokens(withRefreshToken: withRefreshToken, boundTo: proof?.thumbprint, bindingRefreshToken: client.isPublic)
        return audience.isJWT ? minted.forJWT() : minted
    }

    /// Whom the request's access token is for: the resource `resource` names (RFC 8707), which must be registered and
    /// open to `client`, or the server when it names none.
    private func audience(of parameters: FormParameters, client: Client) async throws -> TokenAudience {
        let audience = try await namedAudience(parameters)
        if let resource = audience.resource, !resource.allows(client.id) {
            throw OAuthError(.invalidTarget, "The client \(client.id) may not ask for tokens for \(resource.id).")
        }
        return audience
    }

    /// The registered resource `resource` names, or the server when it names none; `invalid_target` for another.
    private func namedAudience(_ parameters: FormParameters) async throws -> TokenAudience {
        guard let identifier = parameters["resource"] else { return .server }
        guard let resource = try await resources.find(named: identifier) else {
            throw OAuthError(.invalidTarget, "The resource \(identifier.prefix(200)) is not registered here.")
        }
        return TokenAudience(resource: resource)
    }

    /// ``namedAudience(_:)`` read before the write transaction, for a client not yet authenticated: its refusal is
    /// told only to a client that authenticates (an unknown client hears `invalid_client` instead).
    private func namedAudience(_ parameters: FormParameters, authenticating credentials: ClientAuthenticator.Credentials) async throws -> TokenAudience {
        do {
            return try await namedAudience(parameters)
        } catch {
            _ = try await authenticate(credentials)
            throw error
        }
    }

    private func authorizationCode(_ parameters: FormParameters, client: Client, proof: DPoPProof?) async throws -> Response {
        // Before the code is spent: a request the client cannot make good must not use it up.
        let audience = try await audience(of: parameters, client: client)
        try Self.requireProof(from: client, proof, audience: audience)
        guard let code = parameters["code"] else { throw OAuthError.invalidRequest("code is missing.") }
        guard let redirectURI = parameters["redirect_uri"] else { throw OAuthError.invalidRequest("redirect_uri is missing.") }
        let verifier = parameters["code_verifier"]
        if let verifier, !PKCE.isValidVerifier(verifier) {
            throw OAuthError.invalidRequest("code_verifier must be 43 to 128 unreserved characters (RFC 7636 §4.1).")
        }
        // The hooks at `tokens` are asked before the code is spent too: one failing under `deny` leaves it for a retry.
        var added: TokenHooks.Claims?
        if !hooks.targets.isEmpty, let unspent = try await codes.unspent(code, clientID: client.id),
            unspent.scopes.contains("openid") || audience.isJWT
        {
            added = try await hooks.claims(
                user: try await activeUser(unspent.userID), clientID: client.id, grantType: "authorization_code", scopes: unspent.scopes, audience: audience)
        }
        let grant: Grant
        let binding: AuthorizationCodeStore.Binding
        let redemption = try await database.transaction { [codes, audit] _ in
            let redemption = try await codes.redeem(code, clientID: client.id)
            // The revocation of what the code issued and its event commit together.
            if case .replayed = redemption {
                try await audit.record(.authorizationCodeReplayed, client: client.id, actor: "client:\(client.id)")
            }
            // A resource the authorization did not name: refused with the code left unspent (the transaction rolls back).
            if case .redeemed(let grant, _) = redemption { try TokenStore.requireNamed(audience, by: grant) }
            return redemption
        }
        switch redemption {
        case .invalid:
            throw OAuthError.invalidGrant("The authorization code is invalid, expired, or was issued to another client.")
        case .replayed:
            logger.warning("Authorization code replayed; revoked the tokens issued from it", metadata: ["client": "\(client.id)"])
            throw OAuthError.invalidGrant("The authorization code was already used; the tokens issued from it have been revoked.")
        case .redeemed(let redeemedGrant, let redeemedBinding):
            grant = redeemedGrant
            binding = redeemedBinding
        }
        guard binding.redirectURI == redirectURI else {
            throw OAuthError.invalidGrant("redirect_uri does not match the one of the authorization request.")
        }
        // RFC 9449 §10: a code the request bound to a key goes only to a proof by that key; one stolen with its
        // verifier is of no use, and spent.
        if let jkt = binding.dpopJKT, proof?.thumbprint != jkt {
            throw OAuthError(
                .invalidDPoPProof,
                proof == nil
                    ? "The authorization request bound this code to a DPoP key (dpop_jkt); send a DPoP proof made with it."
                    : "The DPoP proof's key is not the one the authorization request named (dpop_jkt).")
        }
        switch (binding.codeChallenge, verifier) {
        case (nil, nil):
            break
        case (nil, .some):
            throw OAuthError.invalidGrant("A code_verifier was sent, but the authorization request had no code_challenge.")
        case (.some, nil):
            throw OAuthError.invalidGrant("code_verifier is missing; the authorization request had a code_challenge.")
        case (.some(let challenge), .some(let verifier)):
            guard ConstantTime.equals(PKCE.challenge(for: verifier), challenge) else {
                throw OAuthError.invalidGrant("code_verifier does not match the code_challenge.")
            }
        }
        let user = try await activeUser(grant.userID)
        let withRefreshToken = grant.scopes.contains("offline_access")
        let tokens = try await self.tokens.issue(
            for: grant, withRefreshToken: withRefreshToken, lifetimes: lifetimes,
            minted: Self.minted(withRefreshToken: withRefreshToken, for: client, proof: proof, audience: audience), audience: audience)
        // An openly registered client that got its first token is no longer removed for disuse.
        try await clients.markUsed(client)
        return try await response(
            for: grant, grantType: "authorization_code", user: user, tokens: tokens, client: client, nonce: binding.nonce, proof: proof, audience: audience,
            added: added)
    }

    /// The token response for a user's grant: the tokens (the access token signed when its audience takes JWTs), plus an
    /// ID token when `openid` was granted; with the claims of the hooks at `tokens` (`added` when they were asked already).
    private func response(
        for grant: Grant, grantType: String, user: User, tokens: TokenStore.IssuedTokens, client: Client, nonce: String?, proof: DPoPProof?,
        audience: TokenAudience = .server, added asked: TokenHooks.Claims? = nil
    ) async throws -> Response {
        let scopes = audience.scopes(of: grant.scopes)
        let lifetime = audience.lifetime(standard: lifetimes.accessToken)
        let withIDToken = grant.scopes.contains("openid")
        // Asked only when there is a token to add to: an ID token, or a JWT access token.
        let added: TokenHooks.Claims =
            if let asked {
                asked
            } else if withIDToken || audience.isJWT {
                try await hooks.claims(user: user, clientID: client.id, grantType: grantType, scopes: grant.scopes, audience: audience)
            } else {
                TokenHooks.Claims()
            }
        let accessToken = try await accessTokens.token(
            tokens.accessToken, for: audience,
            subject: .init(clientID: client.id, userID: grant.userID, authTime: grant.authTime, methods: grant.methods), scopes: scopes,
            jkt: proof?.thumbprint, lifetime: lifetime, extra: added.accessToken)
        let idToken =
            withIDToken
            ? try await idTokens.issue(for: grant, user: user, client: client, nonce: nonce, accessToken: accessToken, extra: added.idToken)
            : nil
        // Only the server's own tokens reach userinfo.
        if !added.userinfo.isEmpty, audience == .server { try await self.tokens.keepUserinfoClaims(added.userinfo, for: accessToken) }
        return JSONResponse.make(
            TokenResponse(
                accessToken: accessToken, tokenType: proof != nil ? "DPoP" : "Bearer", expiresIn: Int(lifetime),
                refreshToken: tokens.refreshToken, idToken: idToken, scope: scopes.isEmpty ? nil : scopes.joined(separator: " ")
            ))
    }

    private func refreshToken(_ parameters: FormParameters, credentials: ClientAuthenticator.Credentials, proof: DPoPProof?) async throws -> Response {
        guard let token = parameters["refresh_token"] else {
            _ = try await authenticate(credentials)
            throw OAuthError.invalidRequest("refresh_token is missing.")
        }
        let requested = parameters["scope"].map { $0.split(separator: " ").map(String.init) }
        // Read before the write transaction; whether the client may ask for it is checked once it is known.
        let audience = try await namedAudience(parameters, authenticating: credentials)
        // No refresh token of its own: the rotation works the successor out from the token it replaces.
        let bearer = TokenStore.MintedTokens(withRefreshToken: false, boundTo: proof?.thumbprint, bindingRefreshToken: true)
        let minted = audience.isJWT ? bearer.forJWT() : bearer
        // The common case in one statement where the engine can (PostgreSQL: two round trips instead of seven).
        if requested == nil, audience == .server, database.engine == .postgresql {
            let rotated = try await database.autocommit { [tokens] sql in
                let client = try await ClientAuthenticator.authenticate(credentials, in: sql)
                try Self.requireProof(from: client, proof)
                return try await tokens.rotateInOneStatement(
                    token, clientID: client.id, lifetimes: lifetimes, minted: minted.issued(to: client), in: sql
                ).map { (client, $0) }
            }
            if let (client, outcome) = rotated, case .rotated(let grant, let tokens, let user) = outcome {
                return try await response(
                    for: grant, grantType: "refresh_token", user: try Self.active(user), tokens: tokens, client: client, nonce: nil, proof: proof)
            }
        }
        let (client, outcome) = try await database.transaction { [tokens, audit, lifetimes, audience] sql in
            let client = try await ClientAuthenticator.authenticate(credentials, in: sql)
            try Self.requireProof(from: client, proof, audience: audience)
            if let resource = audience.resource, !resource.allows(client.id) {
                throw OAuthError(.invalidTarget, "The client \(client.id) may not ask for tokens for \(resource.id).")
            }
            let outcome = try await tokens.refresh(
                token, clientID: client.id, narrowedScopes: requested, lifetimes: lifetimes, minted: minted.issued(to: client),
                audience: audience, in: sql)
            // The family's revocation and its event commit together.
            if case .replayed(let userID) = outcome {
                try await audit.record(.refreshTokenReused, user: userID, client: client.id, actor: "client:\(client.id)")
            }
            return (client, outcome)
        }
        switch outcome {
        case .invalid:
            throw OAuthError.invalidGrant(
                "The refresh token is invalid, expired, revoked, was issued to another client, or is bound to a DPoP key this request did not prove."
            )
        case .replayed:
            logger.warning("Refresh token replayed; revoked its token family", metadata: ["client": "\(client.id)"])
            throw OAuthError.invalidGrant("The refresh token was already used; every token of this sign-in has been revoked.")
        case .rotated(let grant, let tokens, let user):
            let user = try Self.active(user)
            return try await response(
                for: grant, grantType: "refresh_token", user: user, tokens: tokens, client: client, nonce: nil, proof: proof, audience: audience)
        }
    }

    private func clientCredentials(_ parameters: FormParameters, credentials: ClientAuthenticator.Credentials, proof: DPoPProof?) async throws -> Response {
        let requested = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        // Read before the statement that writes; whether the client may ask for it is checked once it is known.
        let audience = try await namedAudience(parameters, authenticating: credentials)
        var minted = TokenStore.MintedTokens(withRefreshToken: false, boundTo: proof?.thumbprint)
        if audience.isJWT { minted = minted.forJWT() }
        let lifetime = audience.lifetime(standard: lifetimes.accessToken)
        // One statement writes: no transaction needed around the client's lookup and the token's insert.
        let (client, token) = try await database.autocommit { [tokens, audience, minted] sql in
            let client = try await ClientAuthenticator.authenticate(credentials, in: sql)
            guard !client.isPublic else {
                throw OAuthError.unauthorizedClient("Public clients cannot use the client_credentials grant.")
            }
            // A client that registered itself acts for people only: its grant types are authorization_code and refresh_token.
            guard client.registeredByOperator else {
                throw OAuthError.unauthorizedClient("A self-registered client cannot use the client_credentials grant; it was not registered for it.")
            }
            try Self.requireProof(from: client, proof, audience: audience)
            if let resource = audience.resource {
                guard resource.allows(client.id, actingForItself: true) else {
                    throw OAuthError(
                        .invalidTarget, "The client \(client.id) is not listed among the clients of \(resource.id) that may ask for tokens on their own behalf."
                    )
                }
                if let invalid = requested.first(where: { !resource.scopeNames.contains($0) }) {
                    throw OAuthError.invalidScope("The resource \(resource.id) does not accept the scope \(invalid).")
                }
            } else {
                // A person's scopes (`account` above all: a client acting for itself has no account to manage).
                let userScopes: Set<String> = ["openid", "offline_access", "profile", "email", "account"]
                if let invalid = requested.first(where: { userScopes.contains($0) || !client.scopes.contains($0) }) {
                    throw OAuthError.invalidScope("The scope \(invalid) cannot be granted to a client acting for itself.")
                }
            }
            return (
                client,
                try await tokens.issueClientToken(
                    clientID: client.id, scopes: requested, lifetime: lifetime, minted: minted, audience: audience.identifier, in: sql)
            )
        }
        let accessToken = try await accessTokens.token(
            token, for: audience, subject: .init(clientID: client.id, userID: nil, authTime: nil, methods: []), scopes: requested,
            jkt: proof?.thumbprint, lifetime: lifetime)
        return JSONResponse.make(
            TokenResponse(
                accessToken: accessToken, tokenType: proof == nil ? "Bearer" : "DPoP", expiresIn: Int(lifetime), scope: requested.joined(separator: " ")))
    }

    /// A device's poll (RFC 8628 §3.4–3.5): the tokens once its user approved, else why not yet (or not at all).
    private func deviceCode(_ parameters: FormParameters, client: Client, proof: DPoPProof?) async throws -> Response {
        try DeviceAuthorizationController.requireGrant(client)
        try Self.requireProof(from: client, proof)
        guard let code = parameters["device_code"] else { throw OAuthError.invalidRequest("device_code is missing.") }
        // Checked before the poll, which hands the approval out once: a device sign-in names no resources.
        if let resource = parameters["resource"] {
            throw OAuthError(.invalidTarget, "The device authorization named no resource, so there is no token for \(resource.prefix(200)).")
        }
        switch try await deviceAuthorizations.poll(deviceCode: code, clientID: client.id) {
        case .pending:
            throw OAuthError(.authorizationPending, "The user has not answered yet; poll again after the interval.")
        case .slowDown(let interval):
            throw OAuthError(.slowDown, "Polled too soon: wait \(interval) seconds between polls from now on.")
        case .denied:
            throw OAuthError(.accessDenied, "The user denied the sign-in.")
        case .expired:
            throw OAuthError(.expiredToken, "The device code expired; start again with a new one.")
        case .invalid:
            throw OAuthError.invalidGrant("The device code is invalid, was issued to another client, or its tokens were already collected.")
        case .approved(let grant):
            let user = try await activeUser(grant.userID)
            let withRefreshToken = grant.scopes.contains("offline_access")
            let tokens = try await self.tokens.issue(
                for: grant, withRefreshToken: withRefreshToken, lifetimes: lifetimes,
                minted: Self.minted(withRefreshToken: withRefreshToken, for: client, proof: proof, audience: .server))
            return try await response(
                for: grant, grantType: "urn:ietf:params:oauth:grant-type:device_code", user: user, tokens: tokens, client: client, nonce: nil, proof: proof)
        }
    }

    /// A client with `require_dpop` gets no token without a proof, nor does anyone a token for a resource with it.
    static func requireProof(from client: Client, _ proof: DPoPProof?, audience: TokenAudience = .server) throws {
        guard proof == nil else { return }
        if client.requiresDPoP {
            throw OAuthError(.invalidDPoPProof, "This client must send a DPoP proof with every token request (RFC 9449).")
        }
        if let resource = audience.resource, resource.requiresDPoP {
            throw OAuthError(.invalidDPoPProof, "The resource \(resource.id) accepts only DPoP-bound tokens: send a DPoP proof (RFC 9449).")
        }
    }

    /// The grant's user, read once for both the lock check and the ID token's claims.
    func activeUser(_ userID: String) async throws -> User {
        try Self.active(try await users.find(id: userID))
    }

    private static func active(_ user: User?) throws -> User {
        guard let user, !user.isLocked else {
            throw OAuthError.invalidGrant("The user of this grant is locked or no longer exists.")
        }
        return user
    }
}
