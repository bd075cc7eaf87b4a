import GatehouseDomain
import GatehouseFoundation

/// The parts the routes are made of, each given the stores, clock, logger and configuration values it uses: here,
/// where the application is put together, and nowhere else.
extension IdentityServer {
    /// The check of requests' DPoP proofs: recorded in this database, against this issuer, with nonces when
    /// `dpop.require_nonce` is on.
    var dpopProofs: DPoPProofCheck {
        DPoPProofCheck(replays: DPoPProofLog(database: database), clock: clock, issuer: issuer, nonces: configuration.dpop.requireNonce ? dpopNonces : nil)
    }

    /// Ends authorization requests: codes, and redirects back to the client.
    var authorizationResponder: AuthorizationResponder {
        AuthorizationResponder(codes: codes, issuer: issuer, codeLifetime: configuration.tokens.authorizationCode)
    }

    /// Whether a browser's session answers an authorization request by itself.
    var singleSignOn: SingleSignOn {
        SingleSignOn(cookies: cookies, sessions: sessions, users: users, loginFlow: loginFlow, clock: clock)
    }

    var authorizationController: AuthorizationController {
        AuthorizationController(
            clients: clients, documents: clientMetadataDocuments, resources: resources, pushedRequests: pushedRequests, singleSignOn: singleSignOn,
            loginFlow: loginFlow,
            responder: authorizationResponder,
            cookies: cookies, registrationEnabled: configuration.registration.enabled, flowLifetime: configuration.tokens.authorizationRequest,
            requestObjects: requestObjects, requirePushed: configuration.requirePushedAuthorizationRequests || configuration.fapi2, localizer: localizer)
    }

    /// Checks signed authorization requests (RFC 9101) with the clients' keys and secrets.
    var requestObjects: RequestObjectVerifier {
        RequestObjectVerifier(
            keys: clientKeySets, secrets: clientSecretBox, issuer: issuer, clock: clock, requireSigned: configuration.requireSignedRequestObject)
    }

    var pushedAuthorizationController: PushedAuthorizationController {
        PushedAuthorizationController(
            authenticator: clientAuthenticator, resources: resources, pushedRequests: pushedRequests, dpopProofs: dpopProofs,
            requestObjects: requestObjects, lifetime: configuration.tokens.pushedRequest)
    }

    var flowController: FlowController {
        FlowController(
            clients: clients, flows: flows, loginFlow: loginFlow, responder: authorizationResponder, deviceCookies: deviceCookies,
            proxies: configuration.trustedProxies, localizer: localizer, clock: clock, logger: logger, issuer: issuer)
    }

    var loginController: LoginController {
        LoginController(
            flows: flows, loginFlow: loginFlow, sessions: sessions, responder: authorizationResponder, appLoginWatcher: appLoginWatcher,
            accessCodeLifetime: configuration.authenticator.accessCodeLifetime, cookies: cookies, deviceCookies: deviceCookies,
            proxies: configuration.trustedProxies, localizer: localizer, sessionLifetime: configuration.tokens.session, logger: logger)
    }

    var deviceAuthorizationController: DeviceAuthorizationController {
        DeviceAuthorizationController(
            clients: clients, authenticator: clientAuthenticator, deviceAuthorizations: deviceAuthorizations, codeLifetime: configuration.tokens.deviceCode,
            pollInterval: configuration.tokens.devicePollInterval, issuer: issuer, clock: clock)
    }

    var deviceVerificationPage: DeviceVerificationPage {
        DeviceVerificationPage(
            clients: clients, users: users, deviceAuthorizations: deviceAuthorizations, consents: consents, singleSignOn: singleSignOn, loginFlow: loginFlow,
            audit: audit,
            database: database, guesses: guesses, userCodeLimit: configuration.codeGuesses, sourceLimit: configuration.sourceThrottling, cookies: cookies,
            proxies: configuration.trustedProxies, flowLifetime: configuration.tokens.authorizationRequest, logger: logger, localizer: localizer)
    }

    var authenticatorController: AuthenticatorController {
        AuthenticatorController(
            users: users, deviceIdentities: deviceIdentities, appLogins: appLogins, oneTimeCodes: oneTimeCodes, audit: audit, database: database,
            courier: courier, guesses: guesses, codeGuesses: codeGuesses, pinKeys: pinKeys, policy: configuration.authenticator,
            codeLifetime: configuration.oneTimeCodes.lifetime, issuer: issuer, serverName: configuration.serviceName, proxies: configuration.trustedProxies,
            clock: clock, logger: logger)
    }

    var deviceConfirmationPage: DeviceConfirmationPage {
        DeviceConfirmationPage(
            deviceIdentities: deviceIdentities, authenticator: authenticatorController, serverName: configuration.serviceName,
            proxies: configuration.trustedProxies, localizer: localizer)
    }

    var tokenController: TokenController {
        TokenController(
            clients: clients, authenticator: clientAuthenticator, resources: resources, codes: codes, tokens: tokens, users: users,
            deviceAuthorizations: deviceAuthorizations, audit: audit,
            database: database,
            idTokens: IDTokenIssuer(issuer: issuer, lifetime: configuration.tokens.idToken, keys: keys, clock: clock),
            accessTokens: AccessTokenSigner(issuer: issuer, keys: keys, clock: clock),
            hooks: TokenHooks(hooks: configuration.hooks, caller: HookCaller(clock: clock, logger: logger)),
            upstreamTokens: UpstreamSubjectTokens(
                providers: configuration.identityProviders, directory: upstreams, identities: federatedIdentities, clock: clock),
            proofs: dpopProofs,
            lifetimes: configuration.tokens, logger: logger)
    }

    /// Authenticates clients at the token, PAR, device, introspection and revocation endpoints: secrets, and the
    /// assertions of clients with keys, whose key sets are cached across requests (``clientKeySets``).
    var clientAuthenticator: ClientAuthenticator {
        ClientAuthenticator(
            clients: clients,
            assertions: ClientAssertionVerifier(
                clients: clients, keys: clientKeySets, replays: DPoPProofLog(database: database), secrets: clientSecretBox, issuer: issuer, clock: clock))
    }

    /// Delivers logout tokens to clients' back-channel logout URIs within `backchannel_logout`'s limits.
    var backChannelLogout: BackChannelLogout {
        let policy = configuration.backchannelLogout
        return BackChannelLogout(
            queue: LogoutNotificationQueue(database: database, clock: clock), clients: clients, keys: keys, audit: audit, issuer: issuer,
            policy: policy,
            strangers: GuardedFetch(allowPrivateAddresses: configuration.clientMetadataDocuments.allowPrivateAddresses, timeout: policy.timeout),
            operators: GuardedFetch(allowPrivateAddresses: true, timeout: policy.timeout), clock: clock, logger: logger)
    }

    var clientMetadataDocuments: ClientMetadataDocuments {
        ClientMetadataDocuments(
            clients: clients, resources: resources, policy: configuration.clientMetadataDocuments, profile: configuration.profile, clock: clock,
            logger: logger)
    }

    var clientRegistrationController: ClientRegistrationController {
        ClientRegistrationController(
            clients: clients, registrations: ClientRegistrationStore(database: database, clock: clock),
            initialTokens: InitialAccessTokenStore(database: database, clock: clock), resources: resources, audit: audit, database: database,
            guesses: guesses, policy: configuration.dynamicRegistration, issuer: issuer, proxies: configuration.trustedProxies,
            secrets: clientSecretBox, profile: configuration.profile, clock: clock, logger: logger)
    }

    var userinfoController: UserinfoController { UserinfoController(tokens: tokens, proofs: dpopProofs) }

    var endSessionController: EndSessionController {
        EndSessionController(clients: clients, sessions: sessions, keys: keys, issuer: issuer, cookies: cookies, localizer: localizer)
    }

    /// The admin operations' settings, for changes through `origin` (`admin_api`, `account_page`).
    func adminSettings(origin: String) -> AdminSettings {
        let (secret, hasher, courier, service) = (secret, hasher, courier, configuration.serviceName)
        var settings = AdminSettings(
            secret: { secret }, passwords: configuration.passwords, hashPassword: { try await hasher.hash($0) }, lifetimes: configuration.tokens,
            maxPINAttempts: configuration.authenticator.maxPINAttempts, origin: origin, profile: configuration.profile)
        settings.tellReplacedContact = { user, replaced, channel in
            try await courier.send(
                channel == .email ? .emailChanged : .phoneChanged, to: replaced, on: channel, service: service, codeLifetime: 0,
                language: courier.language(of: user))
        }
        return settings
    }

    /// The admin operations on this server's database, on behalf of an actor, for changes through `origin`.
    func operations(origin: String) -> @Sendable (_ actor: String) -> DatabaseAdminOperations {
        let (database, clock, settings) = (database, clock, adminSettings(origin: origin))
        return { DatabaseAdminOperations(database: database, clock: clock, settings: settings, actor: $0) }
    }

    /// New email addresses and phone numbers confirmed by a code, for the account page and API.
    var contactChange: ContactChange { ContactChange(loginFlow: loginFlow, users: users) }

    var accountPage: AccountPage {
        AccountPage(
            users: users, authenticators: authenticators, clients: clients, sessions: sessions, audit: audit, database: database, loginFlow: loginFlow,
            operations: operations(origin: "account_page"), contactChange: contactChange, cookies: cookies, deviceCookies: deviceCookies,
            proxies: configuration.trustedProxies,
            policy: configuration.account, passwords: configuration.passwords,
            sessionLifetime: configuration.tokens.session, flowLifetime: configuration.tokens.authorizationRequest, clock: clock, localizer: localizer)
    }

    var adminConsole: AdminConsole {
        AdminConsole(
            users: users, sessions: sessions, roles: AdminRoleStore(database: database, clock: clock), audit: audit, loginFlow: loginFlow,
            makeOperations: operations(origin: "admin_console"), keys: keys, providers: configuration.identityProviders, issuer: issuer,
            courierQueue: courier.queue,
            showsOutbox: [configuration.courier.email, configuration.courier.sms, configuration.courier.voice].contains { $0.delivery == .outbox },
            cookies: cookies, flowLifetime: configuration.tokens.authorizationRequest, clock: clock)
    }

    var accountAPIController: AccountAPIController {
        let loginFlow = loginFlow
        return AccountAPIController(
            tokens: tokens, proofs: dpopProofs, audit: audit, operations: operations(origin: "account_api"),
            notify: { user, notice in try await loginFlow.notify(user, notice) }, policy: configuration.account, authenticators: authenticators,
            authenticator: loginFlow.authenticator, contactChange: contactChange, proxies: configuration.trustedProxies,
            clock: clock)
    }

    var adminController: AdminController {
        let settings = adminSettings(origin: "admin_api")
        return AdminController(
            users: users, clients: clients, audit: audit, database: database, adminTokens: adminTokens, tokens: tokens,
            proofs: dpopProofs, rateLimiter: adminRateLimiter, keys: keys, settings: settings, proxies: configuration.trustedProxies, clock: clock,
            logger: logger)
    }

    /// The demo relying party at `/demo` (`--demo`): its client, the terminal's client and the demo user are
    /// created, or refreshed, first.
    public func demoRelyingParty() async throws -> DemoRelyingParty {
        try await DemoRelyingParty.prepare(
            clients: clients, users: users, hasher: hasher, secret: secret, issuer: issuer, cookies: cookies, clock: clock, host: configuration.host,
            port: configuration.port)
    }

    var federationController: FederationController {
        FederationController(
            flows: flows, loginFlow: loginFlow, login: loginController, cookies: cookies, proxies: configuration.trustedProxies, localizer: localizer)
    }
}
