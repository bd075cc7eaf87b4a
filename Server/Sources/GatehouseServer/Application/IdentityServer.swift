import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import Logging

/// Where the application is put together: the configuration is read, the database opened, and every store, key ring
/// and policy value made once at start; the parts the routes are made of receive from here what they use
/// (`IdentityServer+Parts.swift`, `IdentityServer+Services.swift`). Nothing outside `Application/` holds the server or
/// reads from it: each part's initializer is the list of what it touches.
public final class IdentityServer: Sendable {
    public let configuration: ServerConfiguration
    public let issuer: String
    public let database: any Database
    public let clock: UnixClock
    let logger: Logger
    let hasher: PasswordHasher
    let secret: ServerSecret
    let users: UserStore
    let clients: ClientStore
    /// The APIs tokens may be issued for (RFC 8707).
    let resources: ResourceStore
    /// The public keys of clients that authenticate with a key, fetched from their `jwks_uri` and kept a while.
    let clientKeySets: ClientKeySets
    let consents: ConsentStore
    let keyStore: SigningKeyStore
    let keys: SigningKeyRing
    let sessions: BrowserSessionStore
    let codes: AuthorizationCodeStore
    let pushedRequests: PushedAuthorizationRequestStore
    let tokens: TokenStore
    let flows: FlowStore
    let authenticators: AuthenticatorStore
    let passkeys: PasskeyStore
    let federatedIdentities: FederatedIdentityStore
    /// The audit trail of security events.
    public let audit: AuditLog
    let adminTokens: AdminTokenStore
    let adminRateLimiter: AdminRateLimiter
    /// Seals the tokens of providers configured to keep them.
    let federatedTokens: SecretBox
    /// Other identity providers' endpoints and keys, cached.
    let upstreams: UpstreamDirectory
    let oneTimeCodes: OneTimeCodeStore
    let deviceIdentities: DeviceIdentityStore
    /// Sends sign-in pushes to authenticator apps (or keeps them in the outbox).
    let pushes: PushNotifier
    let appLogins: AppLoginStore
    /// Devices signing in with a user code typed elsewhere (RFC 8628).
    let deviceAuthorizations: DeviceAuthorizationStore
    /// The nonces DPoP proofs carry when `dpop.require_nonce` is on.
    let dpopNonces: DPoPNonces
    let pinKeys: PINKeyring
    /// Delivers emails and text messages; run ``CourierService`` beside the HTTP server for retries.
    /// The QR sign-ins whose pages are open on this node, polled together.
    let appLoginWatcher: AppLoginWatcher
    public let courier: Courier
    let authenticator: PasswordAuthenticator
    /// Guesses of passwords and codes counted per account, address and client address (``AttemptLimiter``).
    let guesses: AttemptLimiter
    let deviceCookies: DeviceCookie
    let cookies: CookieSettings
    /// Wrong codes counted per subject and per source, with the notices of blocks.
    let codeGuesses: CodeGuesses
    /// The sign-in flows' engine, shared by the hosted pages, the flow API and the device grant's confirmation.
    let loginFlow: LoginFlow
    /// The message catalogs (with the operator's overrides) and how a request's language is chosen.
    let localizer: Localizer

    /// Opens the database, migrates it, resolves the server secret and makes sure signing keys exist.
    public static func start(configuration: ServerConfiguration, logger: Logger, clock: UnixClock = .system) async throws -> IdentityServer {
        try PackageResources.requireAll()
        do {
            try Templates.requireAll(overriding: configuration.templatesDirectory)
        } catch {
            throw ConfigurationError(key: "templates_dir", "holds a template that cannot be used. \(error.description)")
        }
        // Before the database: a broken override stops the start without touching anything.
        let catalog = try configuration.messageCatalog()
        let secret = try ServerSecret.resolve(configured: configuration.secret, filePath: configuration.resolvedSecretFile, logger: logger)
        let database = try await DatabaseOpener.open(
            configuration.database, logger: logger, sqliteSynchronous: configuration.sqliteSynchronous, postgresConnections: configuration.postgresConnections,
            wait: .seconds(configuration.databaseWait))
        do {
            let hasher = PasswordHasher(parameters: configuration.passwordHashing, maxConcurrentHashes: configuration.maxConcurrentHashes)
            let decoyHash = try await hasher.hash(SecureRandom.token())
            let server = try IdentityServer(
                configuration: configuration, database: database, clock: clock, logger: logger,
                hasher: hasher, secret: secret, decoyHash: decoyHash, catalog: catalog)
            try await server.keyStore.ensureActiveKeys(box: server.signingKeyBox)
            if let profile = configuration.profile {
                // Every client is held to the server's profile: one registered before it was turned on must be brought
                // to it (or removed) first, rather than served by rules it never agreed to.
                let outside = try await server.clients.list().filter { $0.profile != profile }
                if !outside.isEmpty {
                    throw ConfigurationError(
                        key: profile.rawValue,
                        "holds every client, but \(outside.map(\.id).joined(separator: ", ")) \(outside.count == 1 ? "is" : "are") not registered for it; "
                            + "set their profile (PATCH /admin/v1/clients/{id} with \"profile\": \"\(profile.rawValue)\") or delete them.")
                }
            }
            // What this node runs with, for whoever reads the trail later: which settings, never a secret.
            try await server.audit.record(.configurationLoaded, actor: "system", details: configuration.auditSummary)
            // Load the keys now, so a wrong server secret stops the start instead of the first sign-in.
            _ = try await server.keys.publicKeySet()
            return server
        } catch {
            try? await database.close()
            throw error
        }
    }

    private init(
        configuration: ServerConfiguration, database: any Database, clock: UnixClock, logger: Logger, hasher: PasswordHasher, secret: ServerSecret,
        decoyHash: String, catalog: MessageCatalog
    ) throws {
        self.configuration = configuration
        self.issuer = configuration.resolvedIssuer
        localizer = Localizer(catalog: catalog, defaultLanguage: configuration.defaultLocale, brand: configuration.pageBrand)
        // Stores' transactions join the one a flow submission runs in (see ``TransactionScope``).
        let database = ScopedDatabase(database, carrying: AuditContext.self)
        self.database = database
        self.clock = clock
        self.logger = logger
        self.hasher = hasher
        self.secret = secret
        users = UserStore(database: database, clock: clock)
        clients = ClientStore(database: database, clock: clock)
        resources = ResourceStore(database: database, clock: clock)
        clientKeySets = ClientKeySets(
            fetch: GuardedFetch(
                allowPrivateAddresses: configuration.clientMetadataDocuments.allowPrivateAddresses, timeout: configuration.clientMetadataDocuments.timeout),
            operatorFetch: GuardedFetch(allowPrivateAddresses: true, timeout: configuration.clientMetadataDocuments.timeout))
        consents = ConsentStore(database: database, clock: clock)
        keyStore = SigningKeyStore(database: database, clock: clock)
        keys = SigningKeyRing(
            store: keyStore, box: SecretBox(serverSecret: secret.bytes, purpose: SecretBox.signingKeysPurpose), clock: clock,
            reloadInterval: configuration.keys.reloadInterval)
        sessions = BrowserSessionStore(database: database, clock: clock, idleTimeout: configuration.tokens.sessionIdle)
        codes = AuthorizationCodeStore(database: database, clock: clock)
        pushedRequests = PushedAuthorizationRequestStore(database: database, clock: clock)
        tokens = TokenStore(database: database, clock: clock, secret: secret)
        flows = FlowStore(database: database, clock: clock)
        authenticators = AuthenticatorStore(
            database: database, clock: clock,
            box: SecretBox(serverSecret: secret.bytes, purpose: AuthenticatorStore.purpose))
        passkeys = PasskeyStore(database: database, clock: clock)
        federatedIdentities = FederatedIdentityStore(database: database, clock: clock)
        audit = AuditLog(database: database, clock: clock)
        adminTokens = AdminTokenStore(database: database, clock: clock)
        adminRateLimiter = AdminRateLimiter(clock: clock)
        federatedTokens = SecretBox(serverSecret: secret.bytes, purpose: FederatedIdentityStore.tokensPurpose)
        upstreams = UpstreamDirectory(clock: clock)
        oneTimeCodes = OneTimeCodeStore(
            database: database, clock: clock, policy: configuration.oneTimeCodes,
            box: SecretBox(serverSecret: secret.bytes, purpose: OneTimeCodeStore.purpose))
        deviceIdentities = DeviceIdentityStore(database: database, clock: clock)
        pushes = try PushNotifier(settings: configuration.push, clock: clock, logger: logger) { [deviceIdentities] target in
            try? await deviceIdentities.forgetPush(target)
        }
        appLogins = AppLoginStore(database: database, clock: clock, box: SecretBox(serverSecret: secret.bytes, purpose: AppLoginStore.purpose))
        appLoginWatcher = AppLoginWatcher(store: appLogins)
        dpopNonces = DPoPNonces(clock: clock, secret: secret)
        deviceAuthorizations = DeviceAuthorizationStore(
            database: database, clock: clock, box: SecretBox(serverSecret: secret.bytes, purpose: DeviceAuthorizationStore.purpose))
        pinKeys = PINKeyring(box: SecretBox(serverSecret: secret.bytes, purpose: PINKeyring.purpose))
        courier = Courier(
            queue: CourierQueue(database: database, clock: clock, secret: secret), configuration: configuration.courier,
            clientName: URL(string: configuration.resolvedIssuer)?.host ?? "localhost", logger: logger, catalog: catalog,
            defaultLanguage: configuration.defaultLocale)
        guesses = AttemptLimiter(database: database, clock: clock, secret: secret)
        deviceCookies = DeviceCookie(secret: secret)
        authenticator = PasswordAuthenticator(
            users: users, hasher: hasher, limiter: guesses, accountLimit: configuration.throttling, sourceLimit: configuration.sourceThrottling,
            decoyHash: decoyHash, logger: logger, audit: audit
        )
        cookies = CookieSettings(secure: configuration.issuerIsHTTPS)
        codeGuesses = CodeGuesses(
            limiter: guesses, perSubject: configuration.codeGuesses, perSource: configuration.sourceThrottling, audit: audit, courier: courier,
            clock: clock, logger: logger, serviceName: configuration.serviceName)
        loginFlow = LoginFlow(
            flows: flows, users: users, authenticators: authenticators, passkeys: passkeys, federatedIdentities: federatedIdentities,
            clients: clients, resources: resources, consents: consents, appLogins: appLogins, deviceIdentities: deviceIdentities, pushes: pushes,
            oneTimeCodes: oneTimeCodes, audit: audit,
            authenticator: authenticator, hasher: hasher,
            codeGuesses: codeGuesses, courier: courier, deviceCookies: deviceCookies, upstreams: upstreams, federatedTokens: federatedTokens,
            database: database, clock: clock, logger: logger, settings: configuration.flowSettings,
            firstFactorHooks: FirstFactorHooks(hooks: configuration.hooks, caller: HookCaller(clock: clock, logger: logger)),
            registrationHooks: RegistrationHooks(hooks: configuration.hooks, caller: HookCaller(clock: clock, logger: logger)))
    }

    var signingKeyBox: SecretBox { SecretBox(serverSecret: secret.bytes, purpose: SecretBox.signingKeysPurpose) }
    /// Seals and opens the secrets of `client_secret_jwt` clients.
    var clientSecretBox: SecretBox { SecretBox(serverSecret: secret.bytes, purpose: ClientAuthenticationMethod.sealedSecretPurpose) }

    /// Stops the hashing threads and closes the database.
    public func shutdown() async {
        try? await hasher.shutdown()
        try? await database.close()
    }
}
