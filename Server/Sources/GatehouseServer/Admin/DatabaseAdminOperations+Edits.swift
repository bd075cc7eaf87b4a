import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Changes to an account's profile and to a client's settings, and what an operator does when a person lost their
/// device: each checked the same way whether the admin API's `PATCH` or the console's form asks.
extension DatabaseAdminOperations {
    /// Changes the fields of user `id` that `change` gives, when the account still is as `ifMatch` (its entity tag,
    /// or `*`) says: a change made meanwhile fails as a precondition rather than being overwritten.
    func updateUser(_ id: String, _ change: AdminUserChange, ifMatch expected: String) async throws -> AdminUser {
        let current = try await account(id)
        guard expected == AdminUser.eTag(of: current) || expected == "*" else { throw AdminProblem.preconditionFailed }
        var changed = current
        if let email = change.email {
            try AccountInputValidation.validateEmail(email)
            if current.username.contains("@"), email.lowercased() != current.username {
                throw AdminProblem.badRequest("The username is the email address \(current.username); it cannot change to another address.")
            }
            changed.email = email.lowercased()
            if changed.email != current.email { changed.emailVerified = false }
        }
        if let verified = change.emailVerified { changed.emailVerified = verified }
        if let name = change.name { changed.name = name.isEmpty ? nil : String(name.prefix(200)) }
        if let given = change.givenName { changed.givenName = given.isEmpty ? nil : String(given.prefix(100)) }
        if let family = change.familyName { changed.familyName = family.isEmpty ? nil : String(family.prefix(100)) }
        if let phone = change.phoneNumber {
            if phone.isEmpty {
                changed.phoneNumber = nil
            } else {
                guard let number = PhoneNumber(phone) else { throw AdminProblem.badRequest(PhoneNumber.hint) }
                changed.phoneNumber = number.e164
            }
            if changed.phoneNumber != current.phoneNumber { changed.phoneVerified = false }
        }
        if let verified = change.phoneNumberVerified { changed.phoneVerified = verified && changed.phoneNumber != nil }
        if let address = change.address {
            try address.validate()
            changed.address = address.isEmpty ? nil : address
        }
        if let locale = change.locale { changed.locale = try Self.language(locale) }
        // A way into the account: only an admin changes it on a role holder's account.
        if changed.email != current.email || changed.emailVerified != current.emailVerified || changed.phoneNumber != current.phoneNumber
            || changed.phoneVerified != current.phoneVerified
        {
            try await requireAuthority(over: current, to: "change the email address or phone number of")
        }
        let differences = Self.differences(AdminUser(current), AdminUser(changed))
        let updated: User
        do {
            updated = try await database.transaction { [users, audit, actor, changed] _ in
                guard var updated = try await users.update(current, to: changed) else { throw AdminProblem.preconditionFailed }
                if changed.locale != current.locale {
                    try await users.setLocale(userID: current.id, to: changed.locale)
                    updated.locale = changed.locale
                }
                if !differences.isEmpty { try await audit.record(.accountUpdated, user: current.id, actor: actor, details: differences) }
                return updated
            }
        } catch let error as DatabaseError where error.isDuplicate {
            throw AdminProblem.conflict(error.description)
        }
        // The address or number that stops getting messages hears of it, in case the change was not its owner's wish.
        if let tell = settings.tellReplacedContact {
            if current.email != updated.email, !current.email.isEmpty { try await tell(updated, current.email, .email) }
            if let number = current.phoneNumber, number != updated.phoneNumber { try await tell(updated, number, .sms) }
        }
        return AdminUser(updated)
    }

    /// Changes the settings of client `id` that `change` gives, checked by the rules a new client meets, when the
    /// client still is as `ifMatch` (its entity tag, or `*`) says.
    func updateClient(_ id: String, _ change: AdminClientChange, ifMatch expected: String) async throws -> AdminClient {
        let current = try await registeredClient(id)
        guard expected == AdminETag.of(AdminClient(current)) || expected == "*" else { throw AdminProblem.preconditionFailed }
        var changed = current
        if let name = change.name { changed.name = name.isEmpty ? nil : String(name.prefix(200)) }
        if let uris = change.redirectURIs { changed.redirectURIs = uris }
        if let uris = change.postLogoutRedirectURIs { changed.postLogoutRedirectURIs = uris }
        for uri in changed.redirectURIs + changed.postLogoutRedirectURIs { try ClientRegistrationRules.validateRedirectURI(uri) }
        if changed.isPublic && changed.redirectURIs.isEmpty { throw AdminProblem.badRequest("A public client needs at least one redirect URI.") }
        // Checked on what the client holds and on what it would hold: an admin scope is an admin's to give or change.
        try requireAuthority(overClientWith: current.scopes, to: "change")
        if let scopes = change.scopes {
            try ClientRegistrationRules.validateScopes(scopes)
            try requireAuthority(overClientWith: scopes, to: "give an admin scope to")
            changed.scopes = scopes
        }
        if let algorithm = change.idTokenAlgorithm {
            try ClientRegistrationRules.validateAlgorithm(algorithm)
            changed.idTokenAlgorithm = algorithm
        }
        if let requirePKCE = change.requirePKCE {
            guard requirePKCE || !changed.isPublic else { throw AdminProblem.badRequest("A public client always needs PKCE.") }
            changed.requiresPKCE = requirePKCE
        }
        if let deviceGrant = change.deviceGrant { changed.allowsDeviceGrant = deviceGrant }
        if let requireDPoP = change.requireDPoP { changed.requiresDPoP = requireDPoP }
        if let thirdParty = change.thirdParty { changed.isThirdParty = thirdParty }
        if let logo = change.logoURI {
            if !logo.isEmpty { try ClientRegistrationRules.validateWebPage(logo, named: "logo URI") }
            changed.logoURI = logo.isEmpty ? nil : logo
        }
        if let homepage = change.homepage {
            if !homepage.isEmpty { try ClientRegistrationRules.validateWebPage(homepage, named: "client URI") }
            changed.homepage = homepage.isEmpty ? nil : homepage
        }
        let logoutURIs: [(String?, WritableKeyPath<Client, String?>, String)] = [
            (change.backchannelLogoutURI, \.backchannelLogoutURI, "back-channel logout URI"),
            (change.frontchannelLogoutURI, \.frontchannelLogoutURI, "front-channel logout URI"),
        ]
        for case let (uri?, member, name) in logoutURIs {
            if !uri.isEmpty { try ClientRegistrationRules.validateLogoutURI(uri, named: name) }
            changed[keyPath: member] = uri.isEmpty ? nil : uri
        }
        if let signed = change.requireSignedRequestObject {
            guard !signed || changed.authenticationMethod.usesAssertion else {
                throw AdminProblem.badRequest("A client that must sign its requests needs private_key_jwt or client_secret_jwt to sign them with.")
            }
            changed.requiresSignedRequestObject = signed
        }
        if let pushed = change.requirePushedAuthorizationRequests { changed.requiresPushedAuthorizationRequests = pushed }
        if change.jwksURI != nil || change.jwks != nil {
            guard changed.authenticationMethod == .privateKeyJWT else {
                throw AdminProblem.badRequest("jwks_uri and jwks are for a client that authenticates with private_key_jwt.")
            }
            try ClientRegistrationRules.validateAuthentication(.privateKeyJWT, jwksURI: change.jwksURI, jwks: change.jwks)
            changed.jwksURI = change.jwksURI
            changed.jwks = change.jwks
        }
        if let policy = change.tokenExchange {
            if !policy.audiences.isEmpty { try ClientRegistrationRules.validateTokenExchange(policy, isPublic: changed.isPublic) }
            changed.tokenExchange = policy.audiences.isEmpty ? nil : policy
        }
        if let profile = change.profile { changed.profile = profile }
        if let profile = changed.profile {
            if let violation = profile.violation(of: changed) { throw AdminProblem.badRequest(violation) }
            changed = profile.applied(to: changed)
        }
        let differences = Self.differences(AdminClient(current), AdminClient(changed))
        let updated = try await database.transaction { [clients, audit, actor, changed] _ in
            guard let updated = try await clients.update(current, to: changed) else { throw AdminProblem.preconditionFailed }
            if !differences.isEmpty { try await audit.record(.clientUpdated, client: id, actor: actor, details: differences) }
            return updated
        }
        return AdminClient(updated)
    }

    /// Removes every second factor of user `id`: authenticator apps, phone and email codes, recovery codes (passkeys
    /// are removed one by one). For a person who lost their phone; they set one up again at their next sign-in.
    func resetSecondFactors(of userID: String) async throws {
        let user = try await account(userID)
        try await requireAuthority(over: user, to: "reset the second factors of")
        let authenticators = AuthenticatorStore(
            database: database, clock: clock, box: SecretBox(serverSecret: try settings.secret().bytes, purpose: AuthenticatorStore.purpose))
        try await database.transaction { [audit, actor] _ in
            try await authenticators.removeAll(userID: user.id)
            try await audit.record(.factorRemoved, user: user.id, actor: actor, details: ["factor": "all"])
        }
    }

    /// Signs user `id` out everywhere: every browser session ends, every access and refresh token is revoked.
    func signOutEverywhere(_ userID: String) async throws {
        let user = try await account(userID)
        let now = clock.now()
        try await database.transaction { [audit, actor] sql in
            try await UserStore.endEverything(for: user.id, at: now, in: sql)
            try await audit.record(.tokenRevoked, user: user.id, actor: actor, details: ["scope": "all sessions and tokens"])
        }
    }

    /// Takes the retired signing key `kid` out of the JWKS now, before the tokens it signed expire: for a key that
    /// leaked, whose signatures must stop verifying. A key that still signs must be rotated first.
    func withdrawSigningKey(_ kid: String) async throws {
        try await database.transaction { [keys, audit, actor] sql in
            switch try await keys.withdraw(kid: kid, in: sql) {
            case .withdrawn: try await audit.record(.keyRemoved, actor: actor, details: ["kid": kid, "by": "withdrawn"])
            case .signing: throw AdminProblem.conflict("The key \(kid) still signs: rotate the keys first, then withdraw it.")
            case .unknown: throw AdminProblem.notFound("There is no published signing key \(kid).")
            }
        }
    }

    /// The fields that differ, as `field.before` and `field.after` details.
    static func differences<Representation: Encodable>(_ before: Representation, _ after: Representation) -> [String: String] {
        let encoder = JSONEncoder()
        guard let old = (try? JSONSerialization.jsonObject(with: encoder.encode(before))) as? [String: Any],
            let new = (try? JSONSerialization.jsonObject(with: encoder.encode(after))) as? [String: Any]
        else { return [:] }
        var details: [String: String] = [:]
        for key in Set(old.keys).union(new.keys).sorted() where key != "updated_at" {
            let was = old[key].map(Self.detail) ?? ""
            let now = new[key].map(Self.detail) ?? ""
            if was != now {
                details[key + ".before"] = was
                details[key + ".after"] = now
            }
        }
        return details
    }

    /// A field's value as an audit detail: lists space-separated, like scopes on the wire.
    private static func detail(_ value: Any) -> String {
        if let list = value as? [Any] { return list.map { "\($0)" }.joined(separator: " ") }
        return "\(value)"
    }
}
