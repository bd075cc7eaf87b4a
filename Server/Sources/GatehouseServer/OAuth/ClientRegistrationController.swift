import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird
import Logging

/// Clients that register themselves: `/register` (RFC 7591) and each registration's configuration endpoint
/// `/register/{client_id}` (RFC 7592), when `dynamic_registration.enabled`. A registration needs an initial access
/// token an operator handed out, unless `dynamic_registration.open` (then only a public client, counted per client
/// address, removed when unused). Every such client is a third party: people allow it what it asks for.
struct ClientRegistrationController: Sendable {
    let clients: ClientStore
    let registrations: ClientRegistrationStore
    let initialTokens: InitialAccessTokenStore
    let resources: ResourceStore
    let audit: AuditLog
    let database: any Database
    /// Counts open registrations per client address.
    let guesses: AttemptLimiter
    let policy: DynamicRegistrationPolicy
    let issuer: String
    let proxies: TrustedProxies
    /// Seals the secrets of `client_secret_jwt` clients.
    let secrets: SecretBox
    /// The profile every client is held to (`fapi2`), if any: registering clients too, or they are refused.
    let profile: SecurityProfile?
    let clock: UnixClock
    let logger: Logger

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post("/register") { request, context in
            try await register(request, source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        router.get("/register/:client") { request, context in
            let registration = try await registration(request, context)
            return JSONResponse.make(information(registration.client, metadata: registration.metadata))
        }
        router.put("/register/:client") { request, context in try await update(request, registration: try await registration(request, context)) }
        router.delete("/register/:client") { request, context in
            let registration = try await registration(request, context)
            try await database.transaction { [clients, audit] _ in
                guard try await clients.delete(id: registration.client.id) else { return }
                try await audit.record(.clientDeleted, client: registration.client.id, actor: "client:\(registration.client.id)")
            }
            return Response(status: .noContent)
        }
    }

    func register(_ request: Request, source: ClientAddress) async throws -> Response {
        let presented = AuthorizationCredentials.of("Bearer", in: request.headers)
        if presented == nil {
            guard policy.open else {
                throw OAuthError.invalidToken("Registration needs an initial access token from the operator (Authorization: Bearer ghr_…).")
            }
            try await countOpenRegistration(from: source)
        }
        let metadata = try ClientMetadataRules.validate(
            try await Self.metadata(of: request), open: presented == nil, resourceScopes: try await resources.scopeNames())
        let now = clock.now()
        let method = Self.method(of: metadata)
        let isPublic = method == .none
        let secret = method.usesSecret ? Base64URL.encode(SecureRandom.bytes(32)) : nil
        var client = Client(
            id: "dyn-" + SecureRandom.token(byteCount: 16), name: metadata.clientName, secretHash: secret.map(TokenDigest.hex),
            redirectURIs: metadata.redirectURIs ?? [], postLogoutRedirectURIs: [], scopes: ClientMetadataRules.clientScopes(of: metadata),
            idTokenAlgorithm: "RS256", createdAt: now, isThirdParty: true, logoURI: metadata.logoURI, homepage: metadata.clientURI)
        client.registeredDynamically = true
        client.unusedExpiresAt = presented == nil ? now + policy.unusedClientLifetime : nil
        client.jwksURI = metadata.jwksURI
        client.jwks = metadata.jwks
        client.registeredAuthenticationMethod = method
        client.backchannelLogoutURI = metadata.backchannelLogoutURI
        client.frontchannelLogoutURI = metadata.frontchannelLogoutURI
        client.requiresSignedRequestObject = metadata.requireSignedRequestObject ?? false
        client.requiresPushedAuthorizationRequests = metadata.requirePushedAuthorizationRequests ?? false
        client.sealedSecret = try secret.flatMap { method == .clientSecretJWT ? try secrets.seal(Data($0.utf8)) : nil }
        client = try held(client)
        let registrationToken = SecureRandom.token()
        try await database.transaction { [initialTokens, registrations, audit, client] sql in
            var details = ["public": "\(isPublic)", "redirect_uris": (metadata.redirectURIs ?? []).joined(separator: " ")]
            if let presented {
                guard let initial = try await initialTokens.use(presented, in: sql) else {
                    throw OAuthError.invalidToken("The initial access token is unknown, expired, revoked or used up; ask the operator for a new one.")
                }
                details["initial_token"] = initial.name
            }
            try await registrations.register(client, token: registrationToken, metadata: metadata, open: presented == nil, in: sql)
            try await audit.record(.clientRegistered, client: client.id, actor: "client:\(client.id)", details: details)
        }
        logger.info("A client registered itself", metadata: ["client": "\(client.id)", "public": "\(isPublic)"])
        var answer = information(client, metadata: metadata)
        answer.clientSecret = secret
        answer.clientSecretExpiresAt = secret == nil ? nil : 0
        answer.registrationAccessToken = registrationToken
        var response = JSONResponse.make(answer, status: .created)
        response.headers[.location] = answer.registrationClientURI
        return response
    }

    /// RFC 7592 §2.2: the whole metadata again, replacing what was registered; `client_id` must be the client's own.
    private func update(_ request: Request, registration: ClientRegistrationStore.Registration) async throws -> Response {
        let body = try await Self.body(of: request)
        guard (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["client_id"] as? String == registration.client.id else {
            throw OAuthError.invalidRequest("The body must name the client's own client_id (RFC 7592 §2.2).")
        }
        let metadata = try ClientMetadataRules.validate(
            try Self.decode(body), open: registration.open,
            resourceScopes: try await resources.scopeNames())
        // Between client_secret_basic and client_secret_post only the transport of one secret changes.
        let method = Self.method(of: metadata)
        let sendsSecret: Set<ClientAuthenticationMethod> = [.clientSecretBasic, .clientSecretPost]
        guard method == registration.client.authenticationMethod || sendsSecret.isSuperset(of: [method, registration.client.authenticationMethod])
        else {
            throw OAuthError(
                .invalidClientMetadata,
                "token_endpoint_auth_method cannot change between none, a secret, an assertion with it and keys; register a new client.")
        }
        var changed = registration.client
        changed.registeredAuthenticationMethod = method
        changed.name = metadata.clientName
        changed.redirectURIs = metadata.redirectURIs ?? []
        changed.scopes = ClientMetadataRules.clientScopes(of: metadata)
        changed.logoURI = metadata.logoURI
        changed.homepage = metadata.clientURI
        changed.jwksURI = metadata.jwksURI
        changed.jwks = metadata.jwks
        changed.backchannelLogoutURI = metadata.backchannelLogoutURI
        changed.frontchannelLogoutURI = metadata.frontchannelLogoutURI
        changed.requiresSignedRequestObject = metadata.requireSignedRequestObject ?? false
        changed.requiresPushedAuthorizationRequests = metadata.requirePushedAuthorizationRequests ?? false
        changed = try held(changed)
        guard try await registrations.update(registration, to: changed, metadata: metadata) else {
            throw OAuthError(.invalidClientMetadata, "The registration changed meanwhile; read it again and retry.")
        }
        try await audit.record(.clientUpdated, client: changed.id, actor: "client:\(changed.id)", details: ["via": "registration"])
        return JSONResponse.make(information(changed, metadata: metadata))
    }

    /// The registration the path names, when the request carries its registration access token; a 401 otherwise,
    /// the same whether the client exists or not.
    private func registration(_ request: Request, _ context: some RequestContext) async throws -> ClientRegistrationStore.Registration {
        guard let token = AuthorizationCredentials.of("Bearer", in: request.headers), !token.isEmpty, token.utf8.count <= 256,
            let registration = try await registrations.find(context.parameters.get("client") ?? "", token: token)
        else {
            throw OAuthError.invalidToken("Send the registration access token the registration answered with (Authorization: Bearer …).")
        }
        return registration
    }

    /// `client` as the server's profile holds it (ID tokens ES256 under FAPI 2.0); `invalid_client_metadata` when it
    /// cannot follow it.
    private func held(_ client: Client) throws -> Client {
        guard let profile else { return client }
        var held = client
        held.idTokenAlgorithm = "ES256"
        if let violation = profile.violation(of: held) { throw OAuthError(.invalidClientMetadata, violation) }
        return profile.applied(to: held)
    }

    /// The method `metadata`, already checked, names (``ClientMetadataRules`` fills in the default).
    private static func method(of metadata: ClientMetadata) -> ClientAuthenticationMethod {
        metadata.tokenEndpointAuthMethod.flatMap(ClientAuthenticationMethod.init) ?? .clientSecretBasic
    }

    /// The answer about `client`: its identifier and the metadata as registered (no secret: only the registration shows it).
    private func information(_ client: Client, metadata: ClientMetadata) -> ClientInformation {
        ClientInformation(
            clientID: client.id, clientIDIssuedAt: client.createdAt, registrationClientURI: issuer + "/register/" + client.id, metadata: metadata)
    }

    /// Counts a registration without an initial access token against the client address, per hour; never given back.
    private func countOpenRegistration(from source: ClientAddress) async throws {
        let limit = AttemptLimit(maxFailures: policy.registrationsPerHour, window: 3600, cooldown: 3600, maxCooldown: 3600)
        switch try await guesses.admit([guesses.counter("client_registration", subject: source.subject, limit: limit)]) {
        case .blocked(let until, _):
            var error = OAuthError(
                .tooManyRegistrations, "Too many clients were registered from this address; try again in \(guesses.minutesLeft(until: until)) minutes.")
            error.retryAfter = Int(max(1, until - clock.now()))
            throw error
        case .admitted(let ticket):
            _ = try await guesses.settle(ticket, correct: false)
        }
    }

    private static func body(of request: Request) async throws -> Data {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw OAuthError(.invalidClientMetadata, "Send the client metadata as application/json (RFC 7591 §3.1).")
        }
        return Data(buffer: try await FormParameters.collectBody(of: request))
    }

    private static func metadata(of request: Request) async throws -> ClientMetadata {
        try decode(try await body(of: request))
    }

    /// The metadata of a JSON object; a body that is not one, or a member of the wrong type, is `invalid_client_metadata`.
    private static func decode(_ body: Data) throws -> ClientMetadata {
        guard (try? JSONSerialization.jsonObject(with: body)) is [String: Any] else {
            throw OAuthError(.invalidClientMetadata, "The body must be a JSON object of client metadata (RFC 7591 §2).")
        }
        do {
            return try JSONDecoder().decode(ClientMetadata.self, from: body)
        } catch let DecodingError.typeMismatch(_, context) {
            throw OAuthError(.invalidClientMetadata, "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type.")
        } catch {
            throw OAuthError(.invalidClientMetadata, "The client metadata could not be read.")
        }
    }
}
