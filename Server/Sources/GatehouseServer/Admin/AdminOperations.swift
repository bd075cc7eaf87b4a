import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// What an operator can do to a Gatehouse server, each operation written once with its audit record. The admin API's
/// routes and the `gatehouse` tool on the server's machine run ``DatabaseAdminOperations``; the tool elsewhere
/// (`--server URL`) runs the same operations through the admin API, with an HTTP client that conforms too. Adding an
/// operation is a requirement here, its implementation on the database, and its route.
public protocol AdminOperations: Sendable {
    /// The user whose username is `username` (compared without case).
    func user(named username: String) async throws -> AdminUser
    /// The user `id`.
    func user(id: String) async throws -> AdminUser
    /// Every user.
    func users() async throws -> [AdminUser]
    /// Creates an account; its password, when given, must pass the password policy.
    func createUser(_ account: NewAccount) async throws -> AdminUser
    /// Deletes the user `id` with their sessions and tokens; the audit trail keeps their id and name.
    func deleteUser(id: String) async throws
    /// Locks the user `id` (they cannot sign in; their sessions and tokens end), or unlocks them and lifts the pauses
    /// after their wrong passwords and codes.
    func setLocked(userID: String, _ locked: Bool) async throws
    /// Makes the user `id` choose a new password at their next sign-in.
    func requirePasswordChange(userID: String) async throws
    /// Sets the language of the person's pages and messages: a shipped language's tag, or empty for the browser's.
    func setLocale(of userID: String, to locale: String) async throws -> AdminUser

    /// Every registered client.
    func clients() async throws -> [AdminClient]
    /// Registers a client; a confidential client without a given secret gets a generated one, returned once.
    func createClient(_ registration: ClientRegistration) async throws -> CreatedClient
    /// Deletes the client `id` and revokes its tokens.
    func deleteClient(_ id: String) async throws

    /// The registered resources (APIs), by identifier.
    func resources() async throws -> [Resource]
    /// Registers a resource, checked by ``ResourceRules``.
    func createResource(_ resource: Resource) async throws -> Resource
    /// Replaces a resource's settings (its identifier and creation time stay).
    func updateResource(_ resource: Resource) async throws -> Resource
    /// Removes a resource; every access token issued for it stops working.
    func deleteResource(_ id: String) async throws

    /// The initial access tokens for registering clients (RFC 7591), oldest first; never the tokens.
    func registrationTokens() async throws -> [InitialAccessTokenStore.Record]
    /// Makes an initial access token named `name`, valid `lifetime` seconds for `maxUses` registrations (`nil`: any).
    func createRegistrationToken(name: String, lifetime: Int64, maxUses: Int?) async throws -> CreatedRegistrationToken
    /// Revokes an initial access token; clients it registered stay.
    func revokeRegistrationToken(_ id: String) async throws

    /// Every signing key, active and retired.
    func signingKeys() async throws -> [AdminKey]
    /// Makes new active signing keys; the previous ones stay published until the tokens they signed expire.
    /// - Returns: the new keys.
    func rotateSigningKeys() async throws -> [AdminKey]

    /// Up to `limit` audit events that match `filter`, oldest first, after its cursor.
    func events(_ filter: AuditLog.Filter, limit: Int) async throws -> [AuditEvent]

    /// The user's passkeys.
    func passkeys(of userID: String) async throws -> [AdminPasskey]
    /// Renames the user's passkey `id` (to at most 64 characters).
    /// - Returns: the passkey as renamed.
    @discardableResult
    func renamePasskey(_ id: String, of userID: String, to name: String) async throws -> AdminPasskey
    /// Removes the user's passkey `id`: it signs in no more.
    func removePasskey(_ id: String, of userID: String) async throws

    /// The identities at other providers linked to the user.
    func identities(of userID: String) async throws -> [FederatedIdentity]
    /// Unlinks the user's identity at `provider`, unless it is their only way to sign in.
    func unlinkIdentity(at provider: String, of userID: String) async throws

    /// The browsers where the user is signed in.
    func browserSessions(of userID: String) async throws -> [ActiveSessions.BrowserSessionSummary]
    /// The user's live grants (token families), one per client sign-in.
    func grants(of userID: String) async throws -> [ActiveSessions.Grant]
    /// Ends the user's browser session `id`.
    func endBrowserSession(_ id: String, of userID: String) async throws
    /// Revokes the user's grant `id`, every token of its family.
    /// - Returns: the client the grant was for.
    func revokeGrant(_ id: String, of userID: String) async throws -> String
    /// What the user allowed third-party clients, most recently changed first.
    func consents(of userID: String) async throws -> [Consent]
    /// Forgets what the user allowed the client `clientID` and revokes every token it holds for them: the client asks
    /// again at its next sign-in.
    func revokeConsent(to clientID: String, of userID: String) async throws

    /// The authenticator apps' device identities, of one user or of all, newest first.
    func devices(of userID: String?) async throws -> [AdminDevice]
    /// Unblocks a device identity after too many wrong PINs: its count starts again.
    func unblockDevice(_ id: String) async throws
    /// Removes a device identity; its app must register again.
    func deleteDevice(_ id: String) async throws

    /// Up to `limit` of the courier's messages, to `recipient` or to anyone, newest first.
    func outbox(to recipient: String?, limit: Int) async throws -> [OutboxMessage]
}

/// A message the courier sent or is sending, with its subject and body only on the server's machine: they hold codes,
/// so the admin API never sends them.
public struct OutboxMessage: Sendable {
    /// Where, what and how the message went.
    public var message: AdminMessage
    /// The subject and body, `nil` through the admin API.
    public var subject, body: String?

    /// A message, with its subject and body where they may be shown.
    public init(message: AdminMessage, subject: String?, body: String?) {
        self.message = message
        self.subject = subject
        self.body = body
    }
}

/// What the operations need of the server beyond its database: its secret (which seals signing keys and keys the
/// attempt counters), its password rules and hashing, and its token lifetimes.
public struct AdminSettings: Sendable {
    /// The server secret, resolved only when an operation needs it (resolving it may read a file).
    public var secret: @Sendable () throws -> ServerSecret
    /// The rules a new password must pass.
    public var passwords: PasswordPolicy
    /// Hashes a new password.
    public var hashPassword: @Sendable (String) async throws -> String
    /// Seconds a retired signing key stays in the JWKS: the longest a token it signed may live, and five minutes.
    public var publishFor: Int64
    /// Seconds an access token lives (`token_lifetimes.access_token`): the longest a resource's may.
    public var accessTokenLifetime: Int64
    /// Seconds of disuse after which a browser session ends.
    public var sessionIdle: Int64
    /// Wrong PINs after which a device identity is blocked.
    public var maxPINAttempts: Int
    /// What the audit trail says an account was made or locked through (`by`): `admin_api` or `operator`.
    public var origin: String
    /// The profile every client is held to (`fapi2: true`), if any.
    public var profile: SecurityProfile? = nil
    /// Tells an address or number that it no longer is the account's (the server's courier); `nil` where nothing
    /// sends messages (the terminal on the server's machine).
    package var tellReplacedContact: (@Sendable (_ user: User, _ replaced: String, _ channel: MessageChannel) async throws -> Void)? = nil

    /// Seals the secrets of `client_secret_jwt` clients, which the server must read back to check their assertions.
    func clientSecretBox() throws -> SecretBox {
        SecretBox(serverSecret: try secret().bytes, purpose: ClientAuthenticationMethod.sealedSecretPurpose)
    }

    /// Settings from the server's `secret`, password rules and hashing, token `lifetimes` and PIN limit; `origin` names
    /// the way in for the audit trail.
    public init(
        secret: @escaping @Sendable () throws -> ServerSecret, passwords: PasswordPolicy, hashPassword: @escaping @Sendable (String) async throws -> String,
        lifetimes: TokenLifetimes, maxPINAttempts: Int, origin: String, profile: SecurityProfile? = nil
    ) {
        self.profile = profile
        self.secret = secret
        self.passwords = passwords
        self.hashPassword = hashPassword
        publishFor = lifetimes.retiredKeyPublication
        accessTokenLifetime = lifetimes.accessToken
        sessionIdle = lifetimes.sessionIdle
        self.maxPINAttempts = maxPINAttempts
        self.origin = origin
    }
}

/// An account to create (``AdminOperations/createUser(_:)``).
public struct NewAccount: Sendable, Equatable {
    /// The username (compared without case).
    public var username: String
    /// The email address.
    public var email: String
    /// Whether the address counts as proven (an operator typing it vouches for it).
    public var emailVerified: Bool
    /// The person's full, given and family names.
    public var name, givenName, familyName: String?
    /// Without one the account has no password until its owner sets one (recovery).
    public var password: String?
    /// The language of the person's pages and messages (a shipped language's tag); without one, the browser's.
    public var locale: String?

    /// An account of `username` at `email`, without a password unless one is given.
    public init(
        username: String, email: String, emailVerified: Bool, name: String? = nil, givenName: String? = nil, familyName: String? = nil,
        password: String? = nil, locale: String? = nil
    ) {
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.password = password
        self.locale = locale
    }
}

/// A client to register (``AdminOperations/createClient(_:)``).
public struct ClientRegistration: Sendable, Equatable {
    /// The client id.
    public var id: String
    /// The name shown on the sign-in page.
    public var name: String?
    /// The redirect URIs, matched exactly.
    public var redirectURIs: [String]
    /// The redirect URIs allowed after sign-out.
    public var postLogoutRedirectURIs: [String]
    /// The scopes it may ask for; `nil` for the default ones.
    public var scopes: [String]?
    /// A public client (an app that cannot keep a secret): no secret, PKCE required.
    public var isPublic: Bool
    /// A confidential client's secret, chosen by the operator; `nil` to have one generated.
    public var secret: String?
    /// The ID token's signing algorithm: RS256 or ES256.
    public var idTokenAlgorithm: String
    /// Whether the client must send PKCE; only a confidential client may be exempted.
    public var requirePKCE: Bool
    /// Whether it may use the device authorization grant (RFC 8628).
    public var deviceGrant: Bool
    /// Whether its token requests must carry DPoP proofs (RFC 9449).
    public var requireDPoP: Bool
    /// Whether someone other than the operator runs it: people allow it what it asks for on a consent node.
    public var thirdParty: Bool
    /// Its logo and home page, shown on the consent node (https URLs).
    public var logoURI, homepage: String?
    /// What it may get by exchanging a person's token (RFC 8693); `nil`: nothing.
    public var tokenExchange: TokenExchangePolicy?
    /// How it authenticates; `nil`: `none` for a public client, `client_secret_basic` for a confidential one.
    public var authenticationMethod: ClientAuthenticationMethod?
    /// For `private_key_jwt`: where its public keys are published (https, or http on loopback), or the keys; one of
    /// the two.
    public var jwksURI: String?
    public var jwks: JSONWebKeySet?
    /// Where logout tokens are posted (Back-Channel Logout 1.0), and the page loaded in a frame on sign-out
    /// (Front-Channel Logout 1.0).
    public var backchannelLogoutURI, frontchannelLogoutURI: String?
    /// Whether it must sign its authorization requests (RFC 9101), and push them first (RFC 9126).
    public var requireSignedRequestObject = false
    public var requirePushedAuthorizationRequests = false
    /// The security profile it is held to (FAPI 2.0); the server's, when it holds every client to one.
    public var profile: SecurityProfile?

    /// This registration with its requests required signed (`signed`) or pushed (`pushed`).
    public func requiring(signed: Bool, pushed: Bool, profile: SecurityProfile? = nil) -> ClientRegistration {
        var registration = self
        registration.requireSignedRequestObject = signed
        registration.requirePushedAuthorizationRequests = pushed
        registration.profile = profile
        return registration
    }

    /// The method the client authenticates with, as asked or as ``isPublic`` implies.
    public var resolvedAuthenticationMethod: ClientAuthenticationMethod {
        authenticationMethod ?? (isPublic ? .none : .clientSecretBasic)
    }

    /// A registration; a first-party confidential client with a generated secret, PKCE required, RS256 ID tokens
    /// unless said otherwise.
    public init(
        id: String, name: String? = nil, redirectURIs: [String], postLogoutRedirectURIs: [String] = [], scopes: [String]? = nil,
        isPublic: Bool = false, secret: String? = nil, idTokenAlgorithm: String = "RS256", requirePKCE: Bool = true, deviceGrant: Bool = false,
        requireDPoP: Bool = false, thirdParty: Bool = false, logoURI: String? = nil, homepage: String? = nil,
        tokenExchange: TokenExchangePolicy? = nil, authenticationMethod: ClientAuthenticationMethod? = nil, jwksURI: String? = nil,
        jwks: JSONWebKeySet? = nil, backchannelLogoutURI: String? = nil, frontchannelLogoutURI: String? = nil
    ) {
        self.backchannelLogoutURI = backchannelLogoutURI
        self.frontchannelLogoutURI = frontchannelLogoutURI
        self.authenticationMethod = authenticationMethod
        self.jwksURI = jwksURI
        self.jwks = jwks
        self.id = id
        self.name = name
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.isPublic = isPublic
        self.secret = secret
        self.idTokenAlgorithm = idTokenAlgorithm
        self.requirePKCE = requirePKCE
        self.deviceGrant = deviceGrant
        self.requireDPoP = requireDPoP
        self.thirdParty = thirdParty
        self.logoURI = logoURI
        self.homepage = homepage
        self.tokenExchange = tokenExchange
    }
}

/// An initial access token just made: the token, shown this once, and its record.
public struct CreatedRegistrationToken: Sendable, Codable {
    /// The token (`ghr_…`), sent as `Authorization: Bearer` to `/register`.
    public var token: String
    /// What is kept of it.
    public var record: InitialAccessTokenStore.Record

    /// A token and its record.
    public init(token: String, record: InitialAccessTokenStore.Record) {
        self.token = token
        self.record = record
    }
}

/// The rules of an initial access token's settings, the same through the admin API and the command line.
public enum RegistrationTokenRules {
    /// Checks a token's `name`, `lifetime` (a minute to a year) and `maxUses` (1 to 10000, or any).
    public static func validate(name: String, lifetime: Int64, maxUses: Int?) throws {
        guard (1...64).contains(name.count), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AdminProblem.badRequest("The name must be 1 to 64 characters without line breaks.")
        }
        guard (60...365 * 86_400).contains(lifetime) else { throw AdminProblem.badRequest("The lifetime must be a minute to 365 days.") }
        if let maxUses, !(1...10_000).contains(maxUses) { throw AdminProblem.badRequest("max_uses must be 1 to 10000, or absent for any number.") }
    }
}

/// A registered client, with its secret when the server generated it (shown this once).
public struct CreatedClient: Sendable {
    /// The client as registered.
    public var client: AdminClient
    /// The secret the server generated, shown this once; `nil` for a public client or one with a given secret.
    public var generatedSecret: String?

    /// A registered client and its generated secret.
    public init(client: AdminClient, generatedSecret: String?) {
        self.client = client
        self.generatedSecret = generatedSecret
    }
}
