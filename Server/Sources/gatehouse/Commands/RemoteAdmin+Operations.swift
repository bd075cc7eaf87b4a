import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import GatehouseServer

/// The admin operations through a running server's admin API: the same operations as on the database, for an operator
/// who is not on the server's machine. What the API does not offer is refused here, saying what to do instead.
extension RemoteAdmin: AdminOperations {
    // `user(named:)` and `users()` are RemoteAdmin's own searches.

    func createUser(_ account: NewAccount) async throws -> AdminUser {
        struct NewUser: Encodable {
            var username, email: String
            var email_verified: Bool
            var name, given_name, family_name, password, locale: String?
        }
        return try await send(
            "POST", "/admin/v1/users",
            body: NewUser(
                username: account.username, email: account.email, email_verified: account.emailVerified, name: account.name,
                given_name: account.givenName, family_name: account.familyName, password: account.password, locale: account.locale),
            as: AdminUser.self)
    }

    func user(id: String) async throws -> AdminUser {
        try await send("GET", "/admin/v1/users/\(Self.escaped(id))", as: AdminUser.self)
    }

    func deleteUser(id: String) async throws {
        try await send("DELETE", "/admin/v1/users/\(Self.escaped(id))")
    }

    func setLocked(userID: String, _ locked: Bool) async throws {
        try await send("POST", "/admin/v1/users/\(Self.escaped(userID))/\(locked ? "lock" : "unlock")", as: AdminUser.self)
    }

    func setLocale(of userID: String, to locale: String) async throws -> AdminUser {
        struct Change: Encodable { var locale: String }
        return try await send(
            "PATCH", "/admin/v1/users/\(Self.escaped(userID))", body: Change(locale: locale), headers: ["If-Match": "*"], as: AdminUser.self)
    }

    func requirePasswordChange(userID: String) async throws {
        try await send("POST", "/admin/v1/users/\(Self.escaped(userID))/require-password-change")
    }

    func clients() async throws -> [AdminClient] {
        try await send("GET", "/admin/v1/clients", as: Page<AdminClient>.self).items
    }

    func createClient(_ registration: ClientRegistration) async throws -> CreatedClient {
        if registration.secret != nil { throw CommandError("With --server the server generates the secret: use --generate-secret.") }
        if !registration.requirePKCE { throw CommandError("--allow-without-pkce is not offered through the admin API.") }
        struct NewClient: Encodable {
            var id: String
            var name: String?
            var redirect_uris, post_logout_redirect_uris: [String]
            var scopes: [String]?
            var `public`: Bool
            var id_token_alg: String
            var device_grant: Bool
            var require_dpop: Bool
            var third_party: Bool
            var logo_uri, client_uri: String?
            var token_exchange: TokenExchangePolicy?
            var token_endpoint_auth_method: ClientAuthenticationMethod
            var jwks_uri: String?
            var jwks: JSONWebKeySet?
            var backchannel_logout_uri, frontchannel_logout_uri: String?
            var require_signed_request_object, require_pushed_authorization_requests: Bool
            var profile: SecurityProfile?
        }
        struct Created: Decodable {
            var client: AdminClient
            var client_secret: String?
        }
        let created = try await send(
            "POST", "/admin/v1/clients",
            body: NewClient(
                id: registration.id, name: registration.name, redirect_uris: registration.redirectURIs,
                post_logout_redirect_uris: registration.postLogoutRedirectURIs, scopes: registration.scopes, public: registration.isPublic,
                id_token_alg: registration.idTokenAlgorithm, device_grant: registration.deviceGrant, require_dpop: registration.requireDPoP,
                third_party: registration.thirdParty, logo_uri: registration.logoURI, client_uri: registration.homepage,
                token_exchange: registration.tokenExchange, token_endpoint_auth_method: registration.resolvedAuthenticationMethod,
                jwks_uri: registration.jwksURI, jwks: registration.jwks, backchannel_logout_uri: registration.backchannelLogoutURI,
                frontchannel_logout_uri: registration.frontchannelLogoutURI,
                require_signed_request_object: registration.requireSignedRequestObject,
                require_pushed_authorization_requests: registration.requirePushedAuthorizationRequests, profile: registration.profile),
            as: Created.self)
        return CreatedClient(client: created.client, generatedSecret: created.client_secret)
    }

    func deleteClient(_ id: String) async throws {
        try await send("DELETE", "/admin/v1/clients/\(Self.escaped(id))")
    }

    func resources() async throws -> [Resource] {
        try await send("GET", "/admin/v1/resources", as: Page<Resource>.self).items
    }

    func createResource(_ resource: Resource) async throws -> Resource {
        try await send("POST", "/admin/v1/resources", body: ResourceBody(resource, withID: true), as: Resource.self)
    }

    func updateResource(_ resource: Resource) async throws -> Resource {
        // The whole resource replaces the one on the server, whatever it was (`If-Match: *`): the operator said all of it.
        try await send(
            "PATCH", "/admin/v1/resources/\(Self.escaped(resource.id))", body: ResourceBody(resource, withID: false), headers: ["If-Match": "*"],
            as: Resource.self)
    }

    /// A resource as the admin API takes it: every setting, the identifier only when registering.
    private struct ResourceBody: Encodable {
        var id: String?
        var name: String
        var scopes: [Resource.Scope]
        var token_format: String
        var token_alg: String
        /// `0` for the server's lifetime.
        var access_token_lifetime: Int64
        var require_dpop: Bool
        var allowed_clients, introspection_clients: [String]

        init(_ resource: Resource, withID: Bool) {
            id = withID ? resource.id : nil
            name = resource.name
            scopes = resource.scopes
            token_format = resource.tokenFormat.rawValue
            token_alg = resource.tokenAlgorithm.rawValue
            access_token_lifetime = resource.accessTokenLifetime ?? 0
            require_dpop = resource.requiresDPoP
            allowed_clients = resource.allowedClients
            introspection_clients = resource.introspectionClients
        }
    }

    func deleteResource(_ id: String) async throws {
        try await send("DELETE", "/admin/v1/resources/\(Self.escaped(id))")
    }

    func registrationTokens() async throws -> [InitialAccessTokenStore.Record] {
        try await send("GET", "/admin/v1/registration-tokens", as: Page<InitialAccessTokenStore.Record>.self).items
    }

    func createRegistrationToken(name: String, lifetime: Int64, maxUses: Int?) async throws -> CreatedRegistrationToken {
        struct NewToken: Encodable {
            var name: String
            var expires_in: Int64
            var max_uses: Int?
        }
        return try await send(
            "POST", "/admin/v1/registration-tokens", body: NewToken(name: name, expires_in: lifetime, max_uses: maxUses), as: CreatedRegistrationToken.self)
    }

    func revokeRegistrationToken(_ id: String) async throws {
        try await send("DELETE", "/admin/v1/registration-tokens/\(Self.escaped(id))")
    }

    func signingKeys() async throws -> [AdminKey] {
        try await send("GET", "/admin/v1/keys", as: Page<AdminKey>.self).items
    }

    func rotateSigningKeys() async throws -> [AdminKey] {
        try await send("POST", "/admin/v1/keys/rotate", as: Page<AdminKey>.self).items
    }

    func events(_ filter: AuditLog.Filter, limit: Int) async throws -> [AuditEvent] {
        guard (filter.types?.count ?? 0) <= 1 else { throw CommandError("With --server, give at most one --type.") }
        var query = ["limit=\(limit)"]
        if let type = filter.types?.first { query.append("type=\(type.rawValue)") }
        if let user = filter.userID { query.append("user_id=\(Self.escaped(user))") }
        if let client = filter.clientID { query.append("client_id=\(Self.escaped(client))") }
        if let since = filter.since { query.append("since=\(since)") }
        if let until = filter.until { query.append("until=\(until)") }
        if let after = filter.after { query.append("cursor=\(Self.escaped(after))") }
        return try await send("GET", "/admin/v1/events?" + query.joined(separator: "&"), as: Page<AuditEvent>.self).items
    }

    func passkeys(of userID: String) async throws -> [AdminPasskey] {
        try await send("GET", "/admin/v1/users/\(Self.escaped(userID))/passkeys", as: Page<AdminPasskey>.self).items
    }

    @discardableResult
    func renamePasskey(_ id: String, of userID: String, to name: String) async throws -> AdminPasskey {
        struct Change: Encodable { var name: String }
        return try await send(
            "PATCH", "/admin/v1/users/\(Self.escaped(userID))/passkeys/\(Self.escaped(id))", body: Change(name: name), as: AdminPasskey.self)
    }

    func removePasskey(_ id: String, of userID: String) async throws {
        try await send("DELETE", "/admin/v1/users/\(Self.escaped(userID))/passkeys/\(Self.escaped(id))")
    }

    func identities(of userID: String) async throws -> [FederatedIdentity] {
        try await send("GET", "/admin/v1/users/\(Self.escaped(userID))/identities", as: Page<FederatedIdentity>.self).items
    }

    func unlinkIdentity(at provider: String, of userID: String) async throws {
        try await send("DELETE", "/admin/v1/users/\(Self.escaped(userID))/identities/\(Self.escaped(provider))")
    }

    func browserSessions(of userID: String) async throws -> [ActiveSessions.BrowserSessionSummary] {
        try await send("GET", "/admin/v1/users/\(Self.escaped(userID))/sessions", as: Page<ActiveSessions.BrowserSessionSummary>.self).items
    }

    func grants(of userID: String) async throws -> [ActiveSessions.Grant] {
        try await send("GET", "/admin/v1/users/\(Self.escaped(userID))/grants", as: Page<ActiveSessions.Grant>.self).items
    }

    func endBrowserSession(_ id: String, of userID: String) async throws {
        try await send("DELETE", "/admin/v1/users/\(Self.escaped(userID))/sessions/\(Self.escaped(id))")
    }

    func revokeGrant(_ id: String, of userID: String) async throws -> String {
        // The API answers 204; the grant's client is read first, for the same report as on the database.
        let client = try await grants(of: userID).first { $0.id == id }?.clientID
        try await send("DELETE", "/admin/v1/users/\(Self.escaped(userID))/grants/\(Self.escaped(id))")
        return client ?? "its client"
    }

    func consents(of userID: String) async throws -> [Consent] {
        try await send("GET", "/admin/v1/users/\(Self.escaped(userID))/consents", as: Page<Consent>.self).items
    }

    func revokeConsent(to clientID: String, of userID: String) async throws {
        try await send("DELETE", "/admin/v1/users/\(Self.escaped(userID))/consents/\(Self.escaped(clientID))")
    }

    func devices(of userID: String?) async throws -> [AdminDevice] {
        let all = try await send("GET", "/admin/v1/devices", as: Page<AdminDevice>.self).items
        return all.filter { userID == nil || $0.userID == userID }
    }

    func unblockDevice(_ id: String) async throws {
        try await send("POST", "/admin/v1/devices/\(Self.escaped(id))/unblock")
    }

    func deleteDevice(_ id: String) async throws {
        try await send("DELETE", "/admin/v1/devices/\(Self.escaped(id))")
    }

    func outbox(to recipient: String?, limit: Int) async throws -> [OutboxMessage] {
        let to = recipient.map { "&to=" + Self.escaped($0) } ?? ""
        return try await send("GET", "/admin/v1/outbox?limit=\(min(limit, 500))\(to)", as: Page<AdminMessage>.self).items.map {
            OutboxMessage(message: $0, subject: nil, body: nil)
        }
    }
}

extension StoreOptions {
    /// Runs `body` with the admin operations: through the admin API with `--server`, else on the database (opened and
    /// closed around it), as the operator at this terminal.
    func withOperations<T>(_ body: (any AdminOperations) async throws -> T) async throws -> T {
        if let remote = try remote() { return try await body(remote) }
        return try await withLocalOperations(body)
    }

    /// The operations on this machine's database, for those only it runs (`--server` is refused).
    func withLocalOperations<T>(_ body: (DatabaseAdminOperations) async throws -> T) async throws -> T {
        try await withDatabase { configuration, database in
            let settings = AdminSettings(
                // Read (or made) only by an operation that needs it: rotating keys, unlocking.
                secret: { try ServerSecret.resolve(configured: configuration.secret, filePath: configuration.resolvedSecretFile, logger: .quiet) },
                passwords: configuration.passwords,
                hashPassword: { password in
                    let hasher = PasswordHasher(parameters: configuration.passwordHashing, maxConcurrentHashes: 1)
                    let hash = try await hasher.hash(password)
                    try await hasher.shutdown()
                    return hash
                }, lifetimes: configuration.tokens, maxPINAttempts: configuration.authenticator.maxPINAttempts, origin: "operator",
                profile: configuration.profile)
            return try await body(DatabaseAdminOperations(database: database, settings: settings, actor: OperatorAudit.actor))
        }
    }
}
