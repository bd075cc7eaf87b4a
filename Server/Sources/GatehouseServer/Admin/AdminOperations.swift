/// What an operator can do to a Gatehouse server, each operation written once with its audit record. The admin API's
/// routes and the `gatehouse` tool on the server's machine run ``DatabaseAdminOperations``; the tool elsewhere
/// (`--server URL`) runs the same operations through the admin API, with an HTTP client that conforms too. Adding an
/// operation is a requirement here, its implementation on the database, and its route.
public protocol AdminOperations: Sendable {
    /// The user whose username is `username` (compared without case).
    func user(named username: String) async throws -> AdminUser
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

    /// Every registered client.
    func clients() async throws -> [AdminClient]
    /// Registers a client; a confidential client without a given secret gets a generated one, returned once.
    func createClient(_ registration: ClientRegistration) async throws -> CreatedClient
    /// Deletes the client `id` and revokes its tokens.
    func deleteClient(_ id: String) async throws

    /// Every signing key, active and retired.
    func signingKeys() async throws -> [AdminKey]
    /// Makes new active signing keys; the previous ones stay published until the tokens they signed expire.
    /// - Returns: the new keys.
    func rotateSigningKeys() async throws -> [AdminKey]

    /// Up to `limit` audit events that match `filter`, oldest first, after its cursor.
    func events(_ filter: AuditLog.Filter, limit: Int) async throws -> [AuditEvent]
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
    /// What the audit trail says an account was made or locked through (`by`): `admin_api` or `operator`.
    public var origin: String

    public init(
        secret: @escaping @Sendable () throws -> ServerSecret, passwords: PasswordPolicy, hashPassword: @escaping @Sendable (String) async throws -> String,
        lifetimes: TokenLifetimes, origin: String
    ) {
        self.secret = secret
        self.passwords = passwords
        self.hashPassword = hashPassword
        publishFor = max(lifetimes.idToken, lifetimes.accessToken) + 300
        self.origin = origin
    }
}

/// An account to create (``AdminOperations/createUser(_:)``).
public struct NewAccount: Sendable, Equatable {
    public var username: String
    public var email: String
    public var emailVerified: Bool
    public var name, givenName, familyName: String?
    /// Without one the account has no password until its owner sets one (recovery).
    public var password: String?

    public init(
        username: String, email: String, emailVerified: Bool, name: String? = nil, givenName: String? = nil, familyName: String? = nil,
        password: String? = nil
    ) {
        self.username = username
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.password = password
    }
}

/// A client to register (``AdminOperations/createClient(_:)``).
public struct ClientRegistration: Sendable, Equatable {
    public var id: String
    public var name: String?
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// The scopes it may ask for; `nil` for the default ones.
    public var scopes: [String]?
    /// A public client (an app that cannot keep a secret): no secret, PKCE required.
    public var isPublic: Bool
    /// A confidential client's secret, chosen by the operator; `nil` to have one generated.
    public var secret: String?
    public var idTokenAlgorithm: String
    /// Whether the client must send PKCE; only a confidential client may be exempted.
    public var requirePKCE: Bool
    /// Whether it may use the device authorization grant (RFC 8628).
    public var deviceGrant: Bool
    /// Whether its token requests must carry DPoP proofs (RFC 9449).
    public var requireDPoP: Bool

    /// A registration; a confidential client with a generated secret, PKCE required, RS256 ID tokens unless said otherwise.
    public init(
        id: String, name: String? = nil, redirectURIs: [String], postLogoutRedirectURIs: [String] = [], scopes: [String]? = nil,
        isPublic: Bool = false, secret: String? = nil, idTokenAlgorithm: String = "RS256", requirePKCE: Bool = true, deviceGrant: Bool = false,
        requireDPoP: Bool = false
    ) {
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
    }
}

/// A registered client, with its secret when the server generated it (shown this once).
public struct CreatedClient: Sendable {
    public var client: AdminClient
    public var generatedSecret: String?

    public init(client: AdminClient, generatedSecret: String?) {
        self.client = client
        self.generatedSecret = generatedSecret
    }
}
