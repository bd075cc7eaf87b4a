import Foundation
import GatehouseDomain
import GatehouseFoundation
import Logging

/// Everything the server can be told, with defaults that start a working server on loopback.
///
/// Values are resolved by ``ConfigurationLoader`` from, in increasing precedence: these defaults,
/// a JSON configuration file, `GATEHOUSE_*` environment variables, and command-line options.
public struct ServerConfiguration: Sendable, Decodable {
    /// Address to bind. Loopback by default: exposing the server is a deliberate choice.
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the data lives: a SQLite file in the current folder (created if missing) unless told otherwise.
    public var database = DatabaseLocation.sqlite(path: "gatehouse.sqlite")
    /// The public base URL; defaults to `http://host:port`.
    public var issuer: String?
    /// The server secret; when absent it is read from (or generated into) ``secretFile``.
    public var secret: String?
    /// Where the generated server secret lives; defaults to the database path plus `.secret`.
    public var secretFile: String?
    public var passwordHashing = PasswordHashingParameters.owaspDefault
    /// How many password hashes may run at once (each needs its memory); defaults to the core count.
    public var maxConcurrentHashes = ProcessInfo.processInfo.activeProcessorCount
    public var tokens = TokenLifetimes()
    /// Wrong passwords per account name: progressive delays (a browser that signed in to the account before passes them).
    public var throttling = AttemptLimit.passwords
    /// Wrong codes (delivered codes, TOTP, recovery codes, device confirmations) per account or address, across flows and nodes.
    public var codeGuesses = AttemptLimit.codes
    /// Wrong passwords and codes per client address (IPv4 address, IPv6 /64), across every account.
    public var sourceThrottling = AttemptLimit.sources
    /// What new passwords must satisfy, and when passwords expire.
    public var passwords = PasswordPolicy()
    /// What signing in takes: the password alone, or a second factor too.
    public var signOn = SignOnPolicy()
    /// Sign-on policies for particular clients, by client id, in place of ``signOn``.
    public var clientSignOn: [String: SignOnPolicy] = [:]
    /// Username and password on one node, or the username first and the password on a second node.
    public var loginSteps = LoginSteps.singleNode
    /// Whether and how people create their own accounts.
    public var registration = RegistrationPolicy()
    /// The account page's rules (`account`).
    public var account = AccountPolicy()
    /// The admin console at `/admin` (`admin_console`).
    public var adminConsole = AdminConsolePolicy()
    /// Clients that register themselves (RFC 7591, RFC 7592): off by default.
    public var dynamicRegistration = DynamicRegistrationPolicy()
    /// Clients known by the URL of their metadata document: off by default.
    public var clientMetadataDocuments = ClientMetadataDocumentPolicy()
    /// How logout tokens reach clients' back-channel logout URIs.
    public var backchannelLogout = LogoutDeliveryPolicy()
    /// Whether every client must push its authorization requests first (PAR, RFC 9126), whatever its own setting.
    public var requirePushedAuthorizationRequests = false
    /// Whether every client must sign its authorization requests (JAR, RFC 9101), whatever its own setting.
    public var requireSignedRequestObject = false
    /// Whether every client is held to the FAPI 2.0 Security Profile (`fapi2`).
    public var fapi2 = false

    /// The profile every client is held to, if any.
    public var profile: SecurityProfile? { fapi2 ? .fapi2 : nil }
    /// Codes sent by email or SMS: length, lifetime, guesses, resend backoff.
    public var oneTimeCodes = OneTimeCodePolicy()
    /// How emails and text messages are delivered.
    public var courier = CourierConfiguration()
    /// Sign-in pushes to authenticator apps (APNs, FCM); without it they stay in the outbox.
    public var push = PushSettings()
    /// Sign-in by QR code, approved in an authenticator app with a PIN.
    public var authenticator = AuthenticatorPolicy()
    /// Passkeys: the relying party id, origins and what authenticators are asked for.
    public var webAuthn = WebAuthnPolicy()
    /// Other identity providers people may sign in with ("Sign in with Google").
    public var identityProviders: [IdentityProvider] = []
    /// The audit trail: how long events are kept.
    public var audit = AuditPolicy()
    /// Prometheus metrics on a listener of their own; off until a port is given.
    public var metrics = MetricsPolicy()
    /// Spans exported by OTLP when a collector is configured; off by default.
    public var tracing = TracingPolicy()
    /// The background sweep of expired rows.
    public var housekeeping = HousekeepingPolicy()
    /// Signing keys that rotate by themselves on a schedule; off by default.
    public var keys = SigningKeyPolicy()
    /// The operator's endpoints asked at points of a sign-in (``HookTarget``); none by default.
    public var hooks: [HookTarget] = []
    /// DPoP-bound tokens (RFC 9449): whether proofs need the server's nonce.
    public var dpop = DPoPPolicy()
    /// Connection timeouts and the connection limit.
    public var connections = ConnectionPolicy()
    /// Reverse proxies whose forwarded client addresses the per-address limits believe; none by default.
    public var trustedProxies = TrustedProxies()
    /// The language of pages and messages when neither the request (`ui_locales`), the person's preference nor the
    /// browser's `Accept-Language` names a shipped one (`default_locale`).
    package var defaultLocale = Language.base
    /// A folder of `<language>.json` files whose messages replace the shipped ones (`messages_dir`); read at start.
    public var messagesDirectory: String?
    /// A folder of `<name>.mustache` files that replace the shipped page templates of those names (`templates_dir`);
    /// read at start.
    public var templatesDirectory: String?
    /// The operator's brand on the hosted pages (`branding`).
    public var branding = BrandingPolicy()
    /// Create a demo user and client and serve the demo relying party at `/demo`.
    public var demo = false
    /// The least severe log messages written (to standard error).
    public var logLevel = Logger.Level.info
    /// How a SQLite database waits for the disk at each commit (PostgreSQL has its own `synchronous_commit`).
    public var sqliteSynchronous = SQLiteSynchronous.normal
    /// The most connections a node opens to PostgreSQL. Every node's, added up, must stay below the server's
    /// `max_connections` (100 by default).
    public var postgresConnections = 32
    /// How long a request waits for the database — a PostgreSQL connection, or its turn at SQLite's writer — before it
    /// is answered 503 with `Retry-After` (seconds): while PostgreSQL is unreachable, requests fail fast instead of
    /// piling up and running after their clients gave up.
    public var databaseWait: Int64 = 5

    /// The defaults: a working server on loopback with SQLite in the current folder.
    public init() {}

    /// The configuration file: every key is optional and keeps its default when left out; an unknown key at any
    /// depth is an error naming its path.
    public init(from decoder: any Decoder) throws {
        self.init()
        let file = try decoder.section(CodingKeys.self)
        try file.update(&host, .host)
        try file.update(&port, .port)
        if let text = try file.decodeIfPresent(String.self, forKey: .database) {
            try ServerSetting.database.apply(text, to: &self, from: "The configuration file's database")
        }
        try file.update(&issuer, .issuer)
        try file.update(&secret, .secret)
        try file.update(&secretFile, .secretFile)
        try file.update(&passwordHashing, .passwordHashing)
        try file.update(&maxConcurrentHashes, .maxConcurrentHashes)
        try file.update(&tokens, .tokenLifetimes)
        try file.update(&throttling, .loginThrottling)
        try file.update(&codeGuesses, .codeGuesses)
        try file.update(&sourceThrottling, .sourceThrottling)
        try file.update(&passwords, .passwordPolicy)
        try file.update(&signOn, .signOn)
        try file.update(&clientSignOn, .clientSignOn)
        try file.update(&loginSteps, .loginSteps)
        try file.update(&registration, .registration)
        try file.update(&account, .account)
        try file.update(&adminConsole, .adminConsole)
        try file.update(&dynamicRegistration, .dynamicRegistration)
        try file.update(&clientMetadataDocuments, .clientMetadataDocuments)
        try file.update(&backchannelLogout, .backchannelLogout)
        try file.update(&requirePushedAuthorizationRequests, .requirePushedAuthorizationRequests)
        try file.update(&requireSignedRequestObject, .requireSignedRequestObject)
        try file.update(&fapi2, .fapi2)
        try file.update(&oneTimeCodes, .oneTimeCodes)
        try file.update(&courier, .courier)
        try file.update(&push, .push)
        try file.update(&authenticator, .authenticator)
        try file.update(&webAuthn, .webAuthn)
        try file.update(&identityProviders, .identityProviders)
        try file.update(&audit, .audit)
        try file.update(&metrics, .metrics)
        try file.update(&tracing, .tracing)
        try file.update(&housekeeping, .housekeeping)
        try file.update(&keys, .keys)
        try file.update(&hooks, .hooks)
        try file.update(&dpop, .dpop)
        try file.update(&connections, .connections)
        try file.update(&trustedProxies, .trustedProxies)
        try file.update(&demo, .demo)
        if let text = try file.decodeIfPresent(String.self, forKey: .defaultLocale) {
            guard let language = Language(tag: text) else {
                throw ConfigurationError(
                    key: "default_locale",
                    "is \(text), which is not a shipped language; use one of \(Language.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            defaultLocale = language
        }
        try file.update(&messagesDirectory, .messagesDirectory)
        try file.update(&templatesDirectory, .templatesDirectory)
        try file.update(&branding, .branding)
        try file.update(&sqliteSynchronous, .sqliteSynchronous)
        try file.update(&postgresConnections, .postgresConnections)
        try file.update(&databaseWait, .databaseWait)
        if let text = try file.decodeIfPresent(String.self, forKey: .logLevel) {
            try ServerSetting.logLevel.apply(text, to: &self, from: "The configuration file's log_level")
        }
    }

    /// The configuration file's keys.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, database, issuer, secret, demo, registration, account, courier, authenticator, connections, audit, metrics, tracing
        case housekeeping, dpop, push, keys, hooks
        case dynamicRegistration = "dynamic_registration"
        case adminConsole = "admin_console"
        case clientMetadataDocuments = "client_metadata_documents"
        case backchannelLogout = "backchannel_logout"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case requireSignedRequestObject = "require_signed_request_object"
        case fapi2
        case oneTimeCodes = "one_time_codes"
        case webAuthn = "webauthn"
        case identityProviders = "identity_providers"
        case secretFile = "secret_file"
        case passwordHashing = "password_hashing"
        case maxConcurrentHashes = "max_concurrent_hashes"
        case tokenLifetimes = "token_lifetimes"
        case loginThrottling = "login_throttling"
        case codeGuesses = "code_guesses"
        case sourceThrottling = "source_throttling"
        case passwordPolicy = "password_policy"
        case signOn = "sign_on"
        case clientSignOn = "client_sign_on"
        case loginSteps = "login_steps"
        case logLevel = "log_level"
        case sqliteSynchronous = "sqlite_synchronous"
        case postgresConnections = "postgres_connections"
        case databaseWait = "database_wait"
        case trustedProxies = "trusted_proxies"
        case defaultLocale = "default_locale"
        case messagesDirectory = "messages_dir"
        case templatesDirectory = "templates_dir"
        case branding
    }

    /// The issuer without a trailing slash.
    public var resolvedIssuer: String {
        if let issuer, !issuer.isEmpty {
            return issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)"
    }

    public var resolvedSecretFile: String {
        if let secretFile { return secretFile }
        return if case .sqlite(let path) = database, !database.isInMemory { path + ".secret" } else { "gatehouse.secret" }
    }

    /// Whether the issuer is served over TLS, which decides `Secure` and `__Host-` on cookies.
    public var issuerIsHTTPS: Bool { resolvedIssuer.lowercased().hasPrefix("https://") }

    /// Checks the values that a typo could make dangerous or meaningless.
    public func validate() throws {
        try push.validate()
        guard (0...65535).contains(port) else {
            throw ConfigurationError("The port must be between 0 and 65535, not \(port).", key: "port")
        }
        guard let url = URL(string: resolvedIssuer), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil,
            url.query == nil, url.fragment == nil
        else {
            throw ConfigurationError("The issuer must be an http or https URL without query or fragment, not \(resolvedIssuer).", key: "issuer")
        }
        if scheme == "http", let host = url.host, !LoopbackHost.contains(host) {
            throw ConfigurationError("The issuer \(resolvedIssuer) uses plain http on a non-loopback host; use https.", key: "issuer")
        }
        if case .postgres = database, secret?.isEmpty ?? true, secretFile == nil {
            throw ConfigurationError(
                "With PostgreSQL every node must use the same server secret: set GATEHOUSE_SECRET, or secret or secret_file in the configuration file.")
        }
        try passwordHashing.validate()
        guard maxConcurrentHashes >= 1 else { throw ConfigurationError(key: "max_concurrent_hashes", "must be at least 1.") }
        try tokens.validate()
        try throttling.validate("login_throttling")
        try codeGuesses.validate("code_guesses")
        try sourceThrottling.validate("source_throttling")
        try passwords.validate()
        try oneTimeCodes.validate()
        try courier.validate()
        try authenticator.validate()
        try webAuthn.validate(issuer: resolvedIssuer)
        for (index, provider) in identityProviders.enumerated() {
            try provider.validate(index: index, issuer: resolvedIssuer)
            if identityProviders[..<index].contains(where: { $0.id == provider.id }) {
                throw ConfigurationError(key: IdentityProvider.key(index, "id"), "\(provider.id) is used by an earlier provider.")
            }
        }
        try connections.validate()
        try audit.validate()
        try metrics.validate(serverPort: port)
        if adminConsole.enabled, adminConsole.listener == .metrics, metrics.port == nil {
            throw ConfigurationError(key: "admin_console.listener", "is metrics, but no metrics listener is configured: set metrics.port.")
        }
        try tracing.validate()
        try housekeeping.validate()
        try keys.validate()
        for (index, hook) in hooks.enumerated() {
            try hook.validate(index: index)
            if hooks[..<index].contains(where: { $0.id == hook.id }) {
                throw ConfigurationError(key: HookTarget.key(index, "id"), "\(hook.id) is used by an earlier hook.")
            }
        }
        guard (2...1_000).contains(postgresConnections) else {
            throw ConfigurationError(key: "postgres_connections", "must be between 2 and 1000.")
        }
        guard (1...300).contains(databaseWait) else {
            throw ConfigurationError(key: "database_wait", "must be 1 to 300 seconds.")
        }
        try trustedProxies.validate()
        try branding.validate()
        if fapi2 {
            guard !demo else { throw ConfigurationError(key: "fapi2", "cannot hold the demo's client; turn demo off.") }
            guard tokens.authorizationCode <= SecurityProfile.fapi2CodeLifetime else {
                throw ConfigurationError(key: "token_lifetimes.authorization_code", "must be at most 60 seconds under fapi2.")
            }
        }
        try signOn.validate("sign_on")
        for (client, policy) in clientSignOn { try policy.validate("client_sign_on.\(client)") }
        if ([signOn] + clientSignOn.values).contains(where: { $0.factors.contains(.passkey) || $0.passkeySignIn }),
            webAuthn.relyingParty(issuer: resolvedIssuer) == nil
        {
            throw ConfigurationError(
                key: "webauthn.rp_id",
                "passkeys are offered, but the issuer \(resolvedIssuer) is on an IP address, which browsers refuse for passkeys: serve on a domain name (localhost to try them locally)."
            )
        }
    }

    /// Refuses a production start whose codes would fall into the development outbox (see
    /// ``CourierConfiguration/requireChosenDelivery(voiceInUse:)``); calls count when a policy offers the voice factor.
    public func requireChosenDelivery() throws {
        let voiceInUse = ([signOn] + clientSignOn.values).contains { $0.factors.contains(.voice) }
        try courier.requireChosenDelivery(voiceInUse: voiceInUse)
    }

    /// What `configuration.loaded` records: the settings that change security, never a secret.
    var auditSummary: [String: String] {
        [
            "issuer": resolvedIssuer, "database": { if case .postgres = database { "postgres" } else { "sqlite" } }(),
            "second_factor": signOn.secondFactor.rawValue,
            "registration": "\(registration.enabled)", "identity_providers": identityProviders.map(\.id).joined(separator: " "),
            "login_steps": loginSteps.rawValue, "trusted_proxies": "\(trustedProxies.addresses.count)", "demo": "\(demo)",
        ]
    }

    /// How messages and authenticator apps name this server: its issuer's host (and port).
    var serviceName: String {
        guard let url = URL(string: resolvedIssuer), let host = url.host else { return "Gatehouse" }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// The shipped message catalogs with the operator's overrides (`messages_dir`) laid over them; a broken override
    /// stops the start, naming its file and key.
    func messageCatalog() throws -> MessageCatalog {
        try MessageCatalog.requireShipped()
        guard let messagesDirectory else { return MessageCatalog.standard }
        do {
            return try MessageCatalog.standard.overridden(from: messagesDirectory)
        } catch {
            throw ConfigurationError(key: "messages_dir", "holds an override that cannot be used. \(error.description)")
        }
    }

    /// What the sign-in flows need of this configuration.
    var flowSettings: FlowSettings {
        var settings = FlowSettings(
            issuer: resolvedIssuer, serviceName: serviceName, loginSteps: loginSteps, signOn: signOn, clientSignOn: clientSignOn,
            registration: registration, passwords: passwords, oneTimeCodes: oneTimeCodes, webAuthn: webAuthn, identityProviders: identityProviders,
            authenticator: authenticator, lifetime: tokens.authorizationRequest)
        settings.branding = branding
        return settings
    }

    /// What every hosted page shows of `branding`.
    var pageBrand: PageBrand {
        PageBrand(
            name: branding.productName, logoURL: branding.logoURL, faviconURL: branding.faviconURL, stylesheetURL: branding.stylesheetURL,
            hasColors: branding.primaryColor != nil || branding.accentColor != nil)
    }

    /// `/assets/brand.css`: the operator's colours as the variables Gatehouse's stylesheet reads.
    var brandStylesheet: String {
        var rules: [String] = []
        if let primary = branding.primaryColor { rules.append("--primary: \(primary);") }
        // Links on the light canvas only: the dark scheme keeps its own lifted accent, which a dark brand colour would
        // sink below the contrast WCAG asks for.
        if let accent = branding.accentColor { rules.append("--accent: \(accent);") }
        return "/* The operator's colours (branding). */\n:root { " + rules.joined(separator: " ") + " }\n"
    }
}
