import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol

/// The admin operations on a database: each change and its audit event in one transaction, with `actor` (an admin
/// token, a client, or the operator at the command line) as who did it, or the running request's when `nil`.
public struct DatabaseAdminOperations: AdminOperations {
    let database: any Database
    let clients: ClientStore
    let resources: ResourceStore
    let clock: UnixClock
    let audit: AuditLog
    let users: UserStore
    let keys: SigningKeyStore
    let passkeys: PasskeyStore
    let identities: FederatedIdentityStore
    let sessions: ActiveSessions
    let consents: ConsentStore
    let devices: DeviceIdentityStore
    let settings: AdminSettings
    let actor: String?
    /// How far `actor` may reach; see ``acting(as:)``.
    private(set) var authority = AdminAuthority.full

    /// Operations on `database` with `settings`, on behalf of `actor`, at `clock`'s time.
    public init(database: any Database, clock: UnixClock = .system, settings: AdminSettings, actor: String? = nil) {
        self.database = database
        clients = ClientStore(database: database, clock: clock)
        resources = ResourceStore(database: database, clock: clock)
        self.clock = clock
        audit = AuditLog(database: database, clock: clock)
        users = UserStore(database: database, clock: clock)
        keys = SigningKeyStore(database: database, clock: clock)
        passkeys = PasskeyStore(database: database, clock: clock)
        identities = FederatedIdentityStore(database: database, clock: clock)
        sessions = ActiveSessions(database: database, clock: clock, idleTimeout: settings.sessionIdle)
        consents = ConsentStore(database: database, clock: clock)
        devices = DeviceIdentityStore(database: database, clock: clock)
        self.settings = settings
        self.actor = actor
    }

    /// These operations for someone with `authority`: a console operator's stop short of what only an admin does.
    public func acting(as authority: AdminAuthority) -> DatabaseAdminOperations {
        var limited = self
        limited.authority = authority
        return limited
    }

    public func user(named username: String) async throws -> AdminUser {
        guard let user = try await users.find(username: username) else { throw AdminProblem.notFound("There is no user named \(username.lowercased()).") }
        return AdminUser(user)
    }

    /// The user `id`.
    func account(_ id: String) async throws -> User {
        guard let user = try await users.find(id: id) else { throw AdminProblem.notFound("There is no user with the id \(id).") }
        return user
    }

    public func user(id: String) async throws -> AdminUser {
        AdminUser(try await account(id))
    }

    public func users() async throws -> [AdminUser] {
        try await users.list().map(AdminUser.init)
    }

    public func createUser(_ account: NewAccount) async throws -> AdminUser {
        try AccountInputValidation.validateUsername(account.username, email: account.email)
        try AccountInputValidation.validateEmail(account.email)
        let locale = try Self.language(account.locale ?? "")
        var hash = User.noPassword
        if let password = account.password {
            if let problem = settings.passwords.problem(with: password, username: account.username, email: account.email) {
                throw AdminProblem.badRequest("The password is not accepted: \(problem)")
            }
            hash = try await settings.hashPassword(password)
        }
        let profile = UserProfile(email: account.email, name: account.name, givenName: account.givenName, familyName: account.familyName)
        do {
            let user = try await database.transaction { [users, audit, actor, settings, hash] _ in
                let user = try await users.create(
                    username: account.username, profile: profile, passwordHash: hash, emailVerified: account.emailVerified, phoneVerified: false)
                var details = ["by": settings.origin]
                if let locale {
                    try await users.setLocale(userID: user.id, to: locale)
                    details["locale"] = locale
                }
                try await audit.record(.accountCreated, user: user.id, actor: actor, details: details)
                // Read again only when the language was set after the row was made (it changed the row's time).
                return locale == nil ? user : try await users.find(id: user.id) ?? user
            }
            return AdminUser(user)
        } catch let error as DatabaseError where error.isDuplicate {
            throw AdminProblem.conflict(error.description)
        }
    }

    public func deleteUser(id: String) async throws {
        let user = try await account(id)
        try await requireAuthority(over: user, to: "delete")
        try await database.transaction { [users, audit, actor] _ in
            guard try await users.delete(username: user.username) else { throw AdminProblem.notFound("There is no user with the id \(id).") }
            // The event outlives the account: its id and name stay in the trail.
            try await audit.record(.accountDeleted, user: user.id, actor: actor, details: ["username": user.username])
        }
    }

    /// Sets the password of `userID` to `password` (checked against the password policy), ending every session and
    /// token of the account: whoever had them may have had the old password too.
    public func setPassword(_ password: String, of userID: String) async throws {
        let user = try await account(userID)
        try await requireAuthority(over: user, to: "set the password of")
        if let problem = settings.passwords.problem(with: password, username: user.username, email: user.email) {
            throw AdminProblem.badRequest(problem)
        }
        let hash = try await settings.hashPassword(password)
        try await database.transaction { [users, audit, actor] _ in
            try await users.changePassword(userID: user.id, to: hash)
            try await audit.record(.passwordChanged, user: user.id, actor: actor)
        }
    }

    /// Sets the language `userID` reads pages and messages in: a shipped language's tag (`fr`, or `fr-CA` for French),
    /// or empty to follow the browser again. Audited as an account update.
    public func setLocale(of userID: String, to locale: String) async throws -> AdminUser {
        let current = try await account(userID)
        let chosen = try Self.language(locale)
        guard chosen != current.locale else { return AdminUser(current) }
        try await database.transaction { [users, audit, actor, chosen] _ in
            try await users.setLocale(userID: userID, to: chosen)
            try await audit.record(.accountUpdated, user: userID, actor: actor, details: ["locale": chosen ?? ""])
        }
        return AdminUser(try await account(userID))
    }

    /// The shipped language `tag` names, as its canonical tag (`fr-CA` is `fr`); `nil` for an empty tag (follow the
    /// browser). Throws a bad request naming the shipped languages otherwise.
    static func language(_ tag: String) throws -> String? {
        guard !tag.isEmpty else { return nil }
        guard let language = Language(tag: tag) else {
            throw AdminProblem.badRequest(
                "locale must be one of \(Language.allCases.map(\.tag).joined(separator: ", ")), or empty to follow the browser; not \(tag.prefix(35)).")
        }
        return language.tag
    }

    /// Changes the names on the profile of `userID`: `nil` leaves one as it is, an empty text clears it. Audited with
    /// what changed (the account page and API, where a person changes their own).
    public func setNames(of userID: String, name: String?, givenName: String?, familyName: String?) async throws -> AdminUser {
        let current = try await account(userID)
        var changed = current
        func cleaned(_ text: String, limit: Int) -> String? {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : String(trimmed.prefix(limit))
        }
        if let name { changed.name = cleaned(name, limit: 200) }
        if let givenName { changed.givenName = cleaned(givenName, limit: 100) }
        if let familyName { changed.familyName = cleaned(familyName, limit: 100) }
        let differences = Self.differences(AdminUser(current), AdminUser(changed))
        guard !differences.isEmpty else { return AdminUser(current) }
        let updated = try await database.transaction { [users, audit, actor, changed] _ in
            guard let updated = try await users.update(current, to: changed) else { throw AdminProblem.changedMeanwhile }
            try await audit.record(.accountUpdated, user: current.id, actor: actor, details: differences)
            return updated
        }
        return AdminUser(updated)
    }

    /// Makes `address`, just proven by a code sent to it, the email address of `userID` (verified); an account that
    /// held it without proving it gives it up. Returns the verified address it replaces, to be told of the change.
    public func setProvenEmail(_ address: String, of userID: String) async throws -> String? {
        try AccountInputValidation.validateEmail(address)
        return try await setProvenContact(of: userID) { user in
            if user.usernameKeepsEmail(from: address) {
                throw AdminProblem.badRequest(
                    "Your username is the email address \(user.username); it cannot change to another address.",
                    message: MessageReference("account.problem.username_is_email", ["username": user.username]))
            }
            user.email = address.lowercased()
            user.emailVerified = true
        } previous: {
            $0.emailVerified ? $0.email : nil
        }
    }

    /// Makes `number` (E.164), just proven by a code sent to it, the phone number of `userID` (verified). Returns
    /// the verified number it replaces, to be told of the change.
    public func setProvenPhone(_ number: String, of userID: String) async throws -> String? {
        try await setProvenContact(of: userID) { user in
            user.phoneNumber = number
            user.phoneVerified = true
        } previous: {
            $0.phoneVerified ? $0.phoneNumber : nil
        }
    }

    /// Changes a contact of `userID` as `change` says, audited with what changed; `previous` reads the verified value
    /// it replaces (nothing when nothing changed).
    private func setProvenContact(of userID: String, change: (inout User) throws -> Void, previous: (User) -> String?) async throws -> String? {
        let current = try await account(userID)
        var changed = current
        try change(&changed)
        let differences = Self.differences(AdminUser(current), AdminUser(changed))
        guard !differences.isEmpty else { return nil }
        do {
            try await database.transaction { [users, audit, actor, changed] _ in
                if changed.email != current.email, let holder = try await users.releaseUnprovenEmail(changed.email) {
                    try await audit.record(
                        .accountUpdated, user: holder.id, actor: actor,
                        details: ["email.before": changed.email, "email.after": holder.email, "by": "address_claimed"])
                }
                guard try await users.update(current, to: changed) != nil else { throw AdminProblem.changedMeanwhile }
                try await audit.record(.accountUpdated, user: current.id, actor: actor, details: differences)
            }
        } catch let error as DatabaseError where error.isDuplicate {
            throw AdminProblem.addressTaken
        }
        return previous(current)
    }

    public func setLocked(userID: String, _ locked: Bool) async throws {
        let user = try await account(userID)
        try await database.transaction { [users, audit, actor, settings] _ in
            guard try await users.setLocked(username: user.username, locked) else { throw AdminProblem.notFound("There is no user with the id \(userID).") }
            try await audit.record(locked ? .accountLocked : .accountUnlocked, user: user.id, actor: actor, details: ["by": settings.origin])
        }
        // An operator who unlocks means "let them in now": the pauses after wrong passwords or codes go too.
        if !locked { try await AccountPauses(database: database, secret: try settings.secret()).lift(for: user) }
    }

    public func requirePasswordChange(userID: String) async throws {
        let user = try await account(userID)
        try await database.transaction { [users, audit, actor] _ in
            guard try await users.requirePasswordChange(username: user.username) else { throw AdminProblem.notFound("There is no user with the id \(userID).") }
            try await audit.record(.passwordChangeRequired, user: user.id, actor: actor)
        }
    }

    /// The client `id` as stored.
    func registeredClient(_ id: String) async throws -> Client {
        guard let client = try await clients.find(id: id) else { throw AdminProblem.notFound("There is no client \(id).") }
        return client
    }

    /// The resource whose identifier is `id`.
    func resource(id: String) async throws -> Resource {
        guard let resource = try await resources.find(id: id) else { throw AdminProblem.notFound("There is no resource \(id).") }
        return resource
    }

    public func clients() async throws -> [AdminClient] {
        try await clients.list().map(AdminClient.init)
    }

    public func createClient(_ registration: ClientRegistration) async throws -> CreatedClient {
        try ClientRegistrationRules.validateClientID(registration.id)
        let method = registration.resolvedAuthenticationMethod
        guard (method == .none) == registration.isPublic else {
            throw AdminProblem.badRequest(
                registration.isPublic
                    ? "A public client authenticates with none; \(method.rawValue) is for a confidential client."
                    : "token_endpoint_auth_method none is for a public client.")
        }
        guard !registration.redirectURIs.isEmpty || !registration.isPublic || registration.deviceGrant else {
            throw AdminProblem.badRequest("A public client needs at least one redirect URI (or the device grant).")
        }
        try ClientRegistrationRules.validateAuthentication(method, jwksURI: registration.jwksURI, jwks: registration.jwks)
        guard !registration.requireSignedRequestObject || method.usesAssertion else {
            throw AdminProblem.badRequest("A client that must sign its requests needs private_key_jwt or client_secret_jwt to sign them with.")
        }
        guard method.usesSecret || registration.secret == nil else {
            throw AdminProblem.badRequest("A client that authenticates with \(method.rawValue) has no secret.")
        }
        for uri in registration.redirectURIs + registration.postLogoutRedirectURIs { try ClientRegistrationRules.validateRedirectURI(uri) }
        let scopes = registration.scopes ?? ClientRegistrationRules.defaultScopes
        try ClientRegistrationRules.validateScopes(scopes)
        try requireAuthority(overClientWith: scopes, to: "register")
        try ClientRegistrationRules.validateAlgorithm(registration.idTokenAlgorithm)
        if let secret = registration.secret { try ClientRegistrationRules.validateSecret(secret) }
        if let logo = registration.logoURI { try ClientRegistrationRules.validateWebPage(logo, named: "logo URI") }
        if let homepage = registration.homepage { try ClientRegistrationRules.validateWebPage(homepage, named: "client URI") }
        if let uri = registration.backchannelLogoutURI { try ClientRegistrationRules.validateLogoutURI(uri, named: "back-channel logout URI") }
        if let uri = registration.frontchannelLogoutURI { try ClientRegistrationRules.validateLogoutURI(uri, named: "front-channel logout URI") }
        if let policy = registration.tokenExchange { try ClientRegistrationRules.validateTokenExchange(policy, isPublic: registration.isPublic) }
        // 256 bits from the system's generator, for a client with a secret but none of the operator's.
        let generated = !method.usesSecret || registration.secret != nil ? nil : Base64URL.encode(SecureRandom.bytes(32))
        let secret = method.usesSecret ? registration.secret ?? generated : nil
        // The server's profile holds every client; a client's own is checked against what it registers.
        let profile = settings.profile ?? registration.profile
        if let profile {
            var candidate = Client(
                id: registration.id, redirectURIs: registration.redirectURIs, postLogoutRedirectURIs: registration.postLogoutRedirectURIs, scopes: scopes,
                idTokenAlgorithm: registration.idTokenAlgorithm, createdAt: 0, requiresPKCE: registration.requirePKCE)
            candidate.registeredAuthenticationMethod = method
            if let violation = profile.violation(of: candidate) { throw AdminProblem.badRequest(violation) }
        }
        let sealed = try secret.flatMap { method == .clientSecretJWT ? try settings.clientSecretBox().seal(Data($0.utf8)) : nil }
        do {
            let client = try await database.transaction { [clients, audit, actor] _ in
                let client = try await clients.create(
                    id: registration.id, name: registration.name, secret: secret, redirectURIs: registration.redirectURIs,
                    postLogoutRedirectURIs: registration.postLogoutRedirectURIs, scopes: scopes, idTokenAlgorithm: registration.idTokenAlgorithm,
                    requirePKCE: registration.requirePKCE, allowDeviceGrant: registration.deviceGrant, requireDPoP: registration.requireDPoP,
                    thirdParty: registration.thirdParty, logoURI: registration.logoURI, homepage: registration.homepage,
                    tokenExchange: registration.tokenExchange, authenticationMethod: method, sealedSecret: sealed, jwksURI: registration.jwksURI,
                    jwks: registration.jwks, backchannelLogoutURI: registration.backchannelLogoutURI,
                    frontchannelLogoutURI: registration.frontchannelLogoutURI, requireSignedRequestObject: registration.requireSignedRequestObject,
                    requirePushedAuthorizationRequests: registration.requirePushedAuthorizationRequests, profile: profile)
                try await audit.record(
                    .clientCreated, client: client.id, actor: actor,
                    details: [
                        "public": "\(client.isPublic)", "third_party": "\(client.isThirdParty)", "scopes": scopes.joined(separator: " "),
                        "auth_method": method.rawValue,
                    ])
                return client
            }
            return CreatedClient(client: AdminClient(client), generatedSecret: generated)
        } catch let error as DatabaseError where error.isDuplicate {
            throw AdminProblem.conflict("A client with the id \(registration.id) already exists.")
        }
    }

    /// A new secret for the confidential client `id`, returned this once (stored as a digest; sealed too for a
    /// `client_secret_jwt` client, whose assertions' MACs the server computes); the old one stops working at once.
    public func rotateClientSecret(of id: String) async throws -> String {
        let client = try await clients.find(id: id)
        if let client { try requireAuthority(overClientWith: client.scopes, to: "rotate the secret of") }
        let secret = Base64URL.encode(SecureRandom.bytes(32))
        let sealed = client?.authenticationMethod == .clientSecretJWT ? try settings.clientSecretBox().seal(Data(secret.utf8)) : nil
        try await database.transaction { [clients, audit, actor] _ in
            guard try await clients.replaceSecret(of: id, with: secret, sealed: sealed) else {
                throw AdminProblem.notFound("There is no confidential client \(id).")
            }
            try await audit.record(.clientSecretRotated, client: id, actor: actor)
        }
        return secret
    }

    public func deleteClient(_ id: String) async throws {
        if let client = try await clients.find(id: id) { try requireAuthority(overClientWith: client.scopes, to: "delete") }
        try await database.transaction { [clients, audit, actor] _ in
            guard try await clients.delete(id: id) else { throw AdminProblem.notFound("There is no client with the id \(id).") }
            try await audit.record(.clientDeleted, client: id, actor: actor)
        }
    }

    public func resources() async throws -> [Resource] {
        try await resources.list()
    }

    public func createResource(_ resource: Resource) async throws -> Resource {
        try ResourceRules.validate(resource, longestLifetime: settings.accessTokenLifetime)
        let store = resources
        do {
            return try await database.transaction { [audit, actor] sql in
                let created = try await store.create(resource, in: sql)
                try await audit.record(
                    .resourceCreated, actor: actor,
                    details: ["resource": created.id, "format": created.tokenFormat.rawValue, "scopes": created.scopeNames.joined(separator: " ")])
                return created
            }
        } catch let error as DatabaseError where error.isDuplicate {
            throw AdminProblem.conflict("A resource with the identifier \(resource.id) already exists.")
        }
    }

    public func updateResource(_ resource: Resource) async throws -> Resource {
        try ResourceRules.validate(resource, longestLifetime: settings.accessTokenLifetime)
        let store = resources
        return try await database.transaction { [audit, actor] sql in
            guard let current = try await ResourceStore.find(id: resource.id, in: sql) else {
                throw AdminProblem.notFound("There is no resource \(resource.id).")
            }
            var changed = resource
            changed.createdAt = current.createdAt
            _ = try await store.update(changed, in: sql)
            try await audit.record(
                .resourceUpdated, actor: actor,
                details: ["resource": changed.id, "format": changed.tokenFormat.rawValue, "scopes": changed.scopeNames.joined(separator: " ")])
            return changed
        }
    }

    public func deleteResource(_ id: String) async throws {
        let store = resources
        try await database.transaction { [audit, actor] sql in
            guard try await store.delete(id: id, in: sql) else { throw AdminProblem.notFound("There is no resource \(id).") }
            try await audit.record(.resourceDeleted, actor: actor, details: ["resource": id])
        }
    }

    public func registrationTokens() async throws -> [InitialAccessTokenStore.Record] {
        try await InitialAccessTokenStore(database: database, clock: clock).list()
    }

    public func createRegistrationToken(name: String, lifetime: Int64, maxUses: Int?) async throws -> CreatedRegistrationToken {
        try RegistrationTokenRules.validate(name: name, lifetime: lifetime, maxUses: maxUses)
        let store = InitialAccessTokenStore(database: database, clock: clock)
        return try await database.transaction { [audit, actor] sql in
            let created = try await store.create(name: name, lifetime: lifetime, maxUses: maxUses, in: sql)
            try await audit.record(
                .registrationTokenCreated, actor: actor, details: ["name": name, "id": created.record.id, "max_uses": maxUses.map(String.init) ?? "any"])
            return CreatedRegistrationToken(token: created.token, record: created.record)
        }
    }

    public func revokeRegistrationToken(_ id: String) async throws {
        let store = InitialAccessTokenStore(database: database, clock: clock)
        try await database.transaction { [audit, actor] sql in
            guard try await store.revoke(id: id, in: sql) else { throw AdminProblem.notFound("There is no active registration token \(id).") }
            try await audit.record(.registrationTokenRevoked, actor: actor, details: ["id": id])
        }
    }

    public func signingKeys() async throws -> [AdminKey] {
        let now = clock.now()
        return try await keys.all().map { AdminKey($0, now: now) }
    }

    public func rotateSigningKeys() async throws -> [AdminKey] {
        let created = try await keys.rotate(secret: try settings.secret(), publishFor: settings.publishFor) { [audit, actor] created in
            try await audit.record(.keysRotated, actor: actor, details: ["kids": created.map(\.kid).joined(separator: " ")])
        }
        let now = clock.now()
        return created.map { AdminKey($0, now: now) }
    }

    public func events(_ filter: AuditLog.Filter, limit: Int) async throws -> [AuditEvent] {
        try await audit.events(filter, limit: limit)
    }

    public func passkeys(of userID: String) async throws -> [AdminPasskey] {
        try await passkeys.list(userID: try await account(userID).id).map(AdminPasskey.init)
    }

    @discardableResult
    public func renamePasskey(_ id: String, of userID: String, to name: String) async throws -> AdminPasskey {
        let user = try await account(userID)
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw AdminProblem.badRequest("name must not be empty.") }
        guard try await passkeys.rename(id, of: user.id, to: String(name.prefix(64))),
            let renamed = try await passkeys.list(userID: user.id).first(where: { $0.id == id })
        else { throw AdminProblem.notFound("\(user.username) has no passkey \(id).") }
        return AdminPasskey(renamed)
    }

    public func removePasskey(_ id: String, of userID: String) async throws {
        let user = try await account(userID)
        try await requireAuthority(over: user, to: "remove a passkey of")
        try await database.transaction { [passkeys, audit, actor] _ in
            guard try await passkeys.remove(id, of: user.id) else { throw AdminProblem.notFound("\(user.username) has no passkey \(id).") }
            try await audit.record(.factorRemoved, user: user.id, actor: actor, details: ["factor": "passkey", "passkey": id])
        }
    }

    /// Removes a passkey of `userID` at the person's own request (the account page and API): never the account's last
    /// way to sign in, when it has no password and no other provider.
    public func removeOwnPasskey(_ id: String, of userID: String) async throws {
        let user = try await account(userID)
        let passkeys = try await passkeys(of: user.id)
        guard passkeys.contains(where: { $0.id == id }) else { throw AdminProblem.notFound("The account has no passkey \(id).") }
        let others = try await identities(of: user.id)
        guard user.hasPassword || passkeys.count > 1 || !others.isEmpty else {
            throw AdminProblem.conflict(
                "This passkey is your only way to sign in: add another first.", message: MessageReference("account.problem.last_passkey"))
        }
        try await removePasskey(id, of: user.id)
    }

    public func identities(of userID: String) async throws -> [FederatedIdentity] {
        try await identities.identities(of: try await account(userID).id)
    }

    public func unlinkIdentity(at provider: String, of userID: String) async throws {
        let user = try await account(userID)
        try await requireAuthority(over: user, to: "unlink a sign-in of")
        let outcome = try await database.transaction { [identities, audit, actor] _ in
            let outcome = try await identities.unlink(userID: user.id, providerID: provider)
            if outcome == .unlinked { try await audit.record(.identityUnlinked, user: user.id, actor: actor, details: ["provider": provider]) }
            return outcome
        }
        switch outcome {
        case .unlinked: return
        case .notLinked: throw AdminProblem.notFound("\(user.username) has no identity at \(provider).")
        case .lastWayToSignIn:
            throw AdminProblem.conflict(
                "\(provider) is \(user.username)'s only way to sign in: set a password (recovery) or link another first.",
                message: MessageReference("account.problem.last_identity", ["provider": provider]))
        }
    }

    public func browserSessions(of userID: String) async throws -> [ActiveSessions.BrowserSessionSummary] {
        try await sessions.browserSessions(of: try await account(userID).id)
    }

    public func grants(of userID: String) async throws -> [ActiveSessions.Grant] {
        try await sessions.grants(of: try await account(userID).id)
    }

    public func endBrowserSession(_ id: String, of userID: String) async throws {
        let user = try await account(userID)
        try await database.transaction { [sessions, audit, actor] _ in
            guard try await sessions.endBrowserSession(id, of: user.id) else {
                throw AdminProblem.notFound("\(user.username) has no browser session \(id).")
            }
            try await audit.record(.sessionEnded, user: user.id, actor: actor, details: ["session": id])
        }
    }

    public func revokeGrant(_ id: String, of userID: String) async throws -> String {
        let user = try await account(userID)
        return try await database.transaction { [sessions, audit, actor] _ in
            guard let client = try await sessions.revokeGrant(id, of: user.id) else { throw AdminProblem.notFound("\(user.username) has no live grant \(id).") }
            try await audit.record(.tokenRevoked, user: user.id, client: client, actor: actor, details: ["grant": id])
            return client
        }
    }

    public func consents(of userID: String) async throws -> [Consent] {
        try await consents.list(of: try await account(userID).id)
    }

    public func revokeConsent(to clientID: String, of userID: String) async throws {
        let user = try await account(userID)
        try await database.transaction { [consents, audit, actor] _ in
            guard let scopes = try await consents.revoke(clientID: clientID, of: user.id) else {
                throw AdminProblem.notFound("\(user.username) has not allowed \(clientID) anything.")
            }
            try await audit.record(.consentRevoked, user: user.id, client: clientID, actor: actor, details: ["scope": scopes.joined(separator: " ")])
        }
    }

    public func devices(of userID: String?) async throws -> [AdminDevice] {
        let limit = settings.maxPINAttempts
        return try await devices.list(userID: userID).map { AdminDevice($0, limit: limit) }
    }

    public func unblockDevice(_ id: String) async throws {
        try await database.transaction { [devices, audit, actor] _ in
            guard try await devices.unblock(id) else { throw AdminProblem.notFound("There is no registered device identity \(id).") }
            try await audit.record(.deviceIdentityUnblocked, actor: actor, details: ["identity": id])
        }
    }

    public func deleteDevice(_ id: String) async throws {
        try await database.transaction { [devices, audit, actor] _ in
            guard try await devices.delete(id) else { throw AdminProblem.notFound("There is no device identity \(id).") }
            try await audit.record(.deviceIdentityDeleted, actor: actor, details: ["identity": id])
        }
    }

    /// Deletes an authenticator app of `userID` (at the person's own request, or from their page in the console): only
    /// one of theirs.
    public func deleteOwnDevice(_ id: String, of userID: String) async throws {
        try await requireDevice(id, of: userID)
        try await deleteDevice(id)
    }

    /// Unblocks an authenticator app of `userID` after too many wrong PINs: only one of theirs.
    public func unblockOwnDevice(_ id: String, of userID: String) async throws {
        try await requireDevice(id, of: userID)
        try await unblockDevice(id)
    }

    private func requireDevice(_ id: String, of userID: String) async throws {
        guard try await devices(of: userID).contains(where: { $0.id == id }) else {
            throw AdminProblem.notFound("The account has no authenticator app \(id).")
        }
    }

    public func outbox(to recipient: String?, limit: Int) async throws -> [OutboxMessage] {
        do {
            let queue = CourierQueue(database: database, secret: try settings.secret())
            return try await queue.list(recipient: recipient, limit: limit).map {
                OutboxMessage(message: AdminMessage($0), subject: $0.subject, body: $0.body)
            }
        } catch {
            throw OutboxUnreadable(reason: "\(error)")
        }
    }

    /// The messages could not be opened: another server's database, or another secret.
    struct OutboxUnreadable: Error, CustomStringConvertible {
        let reason: String
        var description: String { "Cannot read the outbox: \(reason). Is this the server's database and server secret?" }
    }
}
