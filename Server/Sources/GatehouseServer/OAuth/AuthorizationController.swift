import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird

/// The authorization endpoint (OpenID Connect Core §3.1.2), GET and POST.
///
/// An unknown client or a redirect URI that is not registered exactly gets an error page and never a
/// redirect, as does an unknown, expired or used `request_uri` (RFC 9126). Every other error goes back to the client. With a usable browser session the code is issued
/// at once (single sign-on); otherwise the request is stored and the browser goes to the sign-in page.
struct AuthorizationController: Sendable {
    let clients: ClientStore
    /// Clients known by the URL of their metadata document, fetched when named (`client_metadata_documents`).
    let documents: ClientMetadataDocuments
    let resources: ResourceStore
    let pushedRequests: PushedAuthorizationRequestStore
    let singleSignOn: SingleSignOn
    let loginFlow: LoginFlow
    let responder: AuthorizationResponder
    let cookies: CookieSettings
    /// Whether `prompt=create` starts registration (`registration.enabled`).
    let registrationEnabled: Bool
    /// Seconds the sign-in page's binding cookie lives (`token_lifetimes.authorization_request`).
    let flowLifetime: Int64
    /// Reads signed requests (`request`, RFC 9101), and refuses unsigned ones from clients that must sign.
    let requestObjects: RequestObjectVerifier
    /// Whether every client must push its requests first (`require_pushed_authorization_requests`).
    let requirePushed: Bool
    /// The language of the error pages: the request's `ui_locales`, else the browser's.
    let localizer: Localizer
    /// `create` starts registration (OpenID Connect "Initiating User Registration").
    static let supportedPrompts: Set<String> = ["none", "login", "consent", "select_account", "create"]

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/authorize") { request, context in try await authorize(request, context: context) }
        router.post("/authorize") { request, context in try await authorize(request, context: context) }
    }

    func authorize(_ request: Request, context: some RequestContext) async throws -> Response {
        var parameters: FormParameters
        do {
            parameters = try await FormParameters.of(request, context: context)
        } catch {
            return PageRenderer.error("page.invalid_request.title", "page.request.unreadable", wording: localizer.wording(for: request))
        }
        // Refusals here are pages, never redirects: the person reads them in the language the request asked for; the
        // technical reasons they quote stay in the protocol's English.
        let wording = localizer.wording(for: request, requested: parameters["ui_locales"].map(AuthorizationRequest.languageTags))
        guard let clientID = parameters["client_id"] else {
            return PageRenderer.error("page.invalid_request.title", "page.request.no_client", wording: wording)
        }
        let found: Client?
        do {
            found = try await documents.client(clientID)
        } catch let refusal as ClientMetadataDocuments.Refusal {
            return PageRenderer.error(
                "page.unknown_application.title", "page.unknown_application.metadata",
                ["url": OutboundHTTP.printable(clientID), "reason": refusal.description], wording: wording)
        }
        guard let client = found else {
            return PageRenderer.error("page.unknown_application.title", "page.unknown_application.message", ["client": clientID], wording: wording)
        }
        let application = ["application": client.name ?? client.id]
        let validated: AuthorizationRequest
        if let requestURI = parameters["request_uri"] {
            // RFC 9126 §4: a request pushed ahead, checked then; the other parameters of this one are not used.
            guard parameters.repeatedName == nil, let pushed = try await pushedRequests.take(requestURI, clientID: client.id) else {
                return PageRenderer.error("page.request_expired.title", "page.request_expired.message", application, wording: wording)
            }
            validated = pushed
        } else {
            if requirePushed || client.requiresPushedAuthorizationRequests {
                return PageRenderer.error("page.invalid_request.title", "page.request.must_push", application, wording: wording)
            }
            do {
                parameters = try await requestObjects.parameters(of: parameters, client: client)
            } catch {
                // The object's redirect URI is not to be trusted: the error goes to the request's own, when registered.
                guard let redirectURI = parameters["redirect_uri"], client.allowsRedirect(to: redirectURI) else {
                    return PageRenderer.error("page.request.refused.title", "page.request.refused.message", ["reason": error.description], wording: wording)
                }
                return responder.failure(redirectURI: redirectURI, state: parameters["state"], error: error.code.rawValue, description: error.description)
            }
            guard let redirectURI = parameters["redirect_uri"], client.allowsRedirect(to: redirectURI),
                !["client_id", "redirect_uri"].contains(parameters.repeatedName ?? "")
            else {
                return PageRenderer.error("page.invalid_redirect.title", "page.invalid_redirect.message", application, wording: wording)
            }
            let checked = try await Self.resources(namedIn: parameters, client: client, from: resources).flatMap { named in
                Self.validate(parameters, client: client, redirectURI: redirectURI, resources: named)
            }
            switch checked {
            case .success(let request): validated = request
            case .failure(let error):
                return responder.failure(redirectURI: redirectURI, state: parameters["state"], error: error.code.rawValue, description: error.description)
            }
        }
        func fail(_ error: String, _ description: String) -> Response {
            responder.failure(redirectURI: validated.redirectURI, state: validated.state, error: error, description: description)
        }

        let session = try await singleSignOn.usableSession(for: validated, request: request)
        let silent = validated.prompts.contains("none")
        if silent && session == nil { return fail("login_required", "The user is not signed in.") }
        let registering = validated.prompts.contains("create") && registrationEnabled
        if let session, !registering {
            // Signed in already; a third-party client may still need the person to allow it (more).
            guard let asking = try await loginFlow.consentToAsk(for: validated, userID: session.userID, client: client) else {
                return try await responder.success(
                    for: validated, userID: session.userID, authTime: session.authTime, methods: session.methods, sessionID: session.sid,
                    afterPost: false)
            }
            if silent { return fail("consent_required", "The user has not allowed \(client.name ?? client.id) what it asks for.") }
            return try await cookies.hostedFlow(for: request, lifetime: flowLifetime) { binding in
                try await loginFlow.beginConsent(
                    validated, asking: asking, userID: session.userID, methods: session.methods, authTime: session.authTime,
                    clientName: client.name ?? client.id, owner: .browser(binding: binding)
                ).id
            }
        }
        return try await cookies.hostedFlow(for: request, lifetime: flowLifetime) { binding in
            try await loginFlow.begin(
                validated, kind: registering ? .registration : .login, clientName: client.name ?? client.id, owner: .browser(binding: binding)
            ).id
        }
    }

    /// The most resources one authorization request may name.
    static let maximumResources = 10

    /// The resources the request's `resource` parameters name (RFC 8707 §2.1), each registered and open to `client`:
    /// else `invalid_target`, reported to the client like every other error after its redirect URI.
    static func resources(namedIn parameters: FormParameters, client: Client, from store: ResourceStore) async throws -> Result<[Resource], OAuthError> {
        var identifiers: [String] = []
        for identifier in parameters.allValues["resource"] ?? [] where !identifier.isEmpty && !identifiers.contains(identifier) {
            identifiers.append(identifier)
        }
        guard identifiers.count <= maximumResources else {
            return .failure(OAuthError(.invalidTarget, "Name at most \(maximumResources) resources in one authorization request."))
        }
        var named: [Resource] = []
        for identifier in identifiers {
            guard let resource = try await store.find(named: identifier) else {
                return .failure(OAuthError(.invalidTarget, "The resource \(identifier.prefix(200)) is not registered here."))
            }
            guard resource.allows(client.id) else {
                return .failure(OAuthError(.invalidTarget, "The client \(client.id) may not ask for tokens for \(resource.id)."))
            }
            named.append(resource)
        }
        return .success(named)
    }

    /// Checks everything after client and redirect URI, for the `resources` the request named; errors here are
    /// reported to the client.
    static func validate(
        _ parameters: FormParameters, client: Client, redirectURI: String, resources: [Resource] = []
    ) -> Result<AuthorizationRequest, OAuthError> {
        if let repeated = parameters.repeatedName {
            return .failure(.invalidRequest("The parameter \(repeated) appears more than once."))
        }
        if parameters["request"] != nil { return .failure(.init(.invalidRequestObject, "A request object cannot be nested.")) }
        if parameters["request_uri"] != nil { return .failure(.init(.requestURINotSupported, "request_uri is not supported.")) }
        guard let responseType = parameters["response_type"] else {
            return .failure(.invalidRequest("response_type is missing; use response_type=code."))
        }
        guard responseType == "code" else {
            return .failure(.init(.unsupportedResponseType, "Only the authorization code flow (response_type=code) is supported."))
        }
        if let mode = parameters["response_mode"], mode != "query" {
            return .failure(.invalidRequest("Only response_mode=query is supported."))
        }
        let scopes = (parameters["scope"] ?? "").split(separator: " ").map(String.init)
        if let error = Self.scopeError(scopes, client: client, resources: resources) { return .failure(error) }

        let challenge = parameters["code_challenge"]
        let method = parameters["code_challenge_method"]
        if let challenge {
            // RFC 7636 §4.3: an absent method means "plain", which Gatehouse rejects.
            guard method == PKCE.method else {
                return .failure(.invalidRequest("code_challenge_method must be S256; plain is not accepted."))
            }
            guard PKCE.isValidChallenge(challenge) else {
                return .failure(.invalidRequest("code_challenge is not a valid S256 challenge (43 base64url characters)."))
            }
        } else {
            if method != nil { return .failure(.invalidRequest("code_challenge_method was sent without code_challenge.")) }
            if client.isPublic || client.requiresPKCE {
                return .failure(.invalidRequest("PKCE is required for this client: send code_challenge with S256."))
            }
        }

        let prompts = Set((parameters["prompt"] ?? "").split(separator: " ").map(String.init))
        if let unknown = prompts.first(where: { !Self.supportedPrompts.contains($0) }) {
            return .failure(.invalidRequest("The prompt value \(unknown) is not supported."))
        }
        if prompts.contains("none") && prompts.count > 1 {
            return .failure(.invalidRequest("prompt=none cannot be combined with other prompt values."))
        }
        var maxAge: Int64?
        if let text = parameters["max_age"] {
            guard let value = Int64(text), value >= 0 else { return .failure(.invalidRequest("max_age must be a non-negative number of seconds.")) }
            maxAge = value
        }
        // A SHA-256 thumbprint is 43 base64url characters (RFC 7638, RFC 9449 §10).
        if let jkt = parameters["dpop_jkt"], !PKCE.isValidChallenge(jkt) {
            return .failure(.invalidRequest("dpop_jkt must be the base64url SHA-256 thumbprint of the DPoP key (43 characters)."))
        }
        for (name, limit) in [("state", 2048), ("nonce", 512), ("login_hint", 256), ("acr_values", 512), ("ui_locales", 256)] {
            if let value = parameters[name], value.utf8.count > limit {
                return .failure(.invalidRequest("\(name) is longer than \(limit) bytes."))
            }
        }
        var claims: ClaimsRequest?
        if let text = parameters["claims"] {
            do {
                claims = try ClaimsRequest(parsing: text)
            } catch {
                return .failure(.invalidRequest(error.description))
            }
        }
        // The hint is shown as the typed username: it may not carry what a typed one may not.
        if let hint = parameters["login_hint"], hint.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .failure(.invalidRequest("login_hint cannot contain line breaks or other control characters."))
        }
        var request = AuthorizationRequest(
            clientID: client.id, redirectURI: redirectURI, scopes: scopes, state: parameters["state"], nonce: parameters["nonce"],
            codeChallenge: challenge, prompts: prompts, maxAge: maxAge, loginHint: parameters["login_hint"],
            // An acr asked for in claims stands for acr_values when those are absent.
            acrValues: parameters["acr_values"].map { $0.split(separator: " ").map(String.init) } ?? claims?.acrValues, dpopJKT: parameters["dpop_jkt"],
            resources: resources.isEmpty ? nil : resources.map(\.id)
        )
        request.claims = claims.map { ScopeClaims.limiting($0, to: client.scopes) }
        request.profile = client.profile
        request.uiLocales = parameters["ui_locales"].map(AuthorizationRequest.languageTags)
        return .success(request)
    }

    /// Why `client` may not ask a user for `scopes`, or `nil` when it may (the device authorization endpoint asks too).
    /// The scopes of the named `resources` may be asked for too; a request naming a resource may ask for no scope at all.
    static func scopeError(_ scopes: [String], client: Client, resources: [Resource] = []) -> OAuthError? {
        guard !scopes.isEmpty || !resources.isEmpty else { return .invalidScope("No scope was requested; request at least openid.") }
        let resourceScopes = Set(resources.flatMap(\.scopeNames))
        let scopes = scopes.filter { !resourceScopes.contains($0) }
        if let unknown = scopes.first(where: { !ClientRegistrationRules.knownScopes.contains($0) }) {
            return .invalidScope(
                resources.isEmpty
                    ? "The scope \(unknown) is not known." : "The scope \(unknown) is not known, nor accepted by the resources the request names.")
        }
        if let admin = scopes.first(where: ClientRegistrationRules.adminScopes.contains) {
            return .invalidScope("The scope \(admin) is granted only to a client acting for itself (client_credentials), never through a user.")
        }
        if let forbidden = scopes.first(where: { !client.scopes.contains($0) }) {
            return .invalidScope("The client may not request the scope \(forbidden).")
        }
        return nil
    }
}
