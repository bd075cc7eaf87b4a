import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird

/// The account API under `/account/v1` (described by `/openapi/account.json`): the account page's reading and its
/// revocations as JSON, for an app acting for the signed-in person with an access token carrying the `account` scope
/// (bearer, or DPoP-bound with a proof of each request, as at userinfo). Its changes are the admin API's operations on
/// the token's own user, recorded with `user:ID` as the actor. Sensitive changes (the password; removing a passkey, an
/// authenticator app or another provider; deleting the account) need a sign-in younger than
/// `account.reauthenticate_after`, and with the second factor when the account has one, else
/// `insufficient_user_authentication` (RFC 9470, 401 with `max_age`, and `acr_values` naming the multi-factor
/// context): the app signs the person in again and retries. Errors are OAuth errors (RFC 6750):
/// `invalid_token` (401), `insufficient_scope` (403, naming `account`), `not_found` (404), `invalid_request` (400, or
/// 409 for a change the account's state refuses).
struct AccountAPIController: Sendable {
    let tokens: TokenStore
    /// Checks the proofs of DPoP-bound tokens.
    let proofs: DPoPProofCheck
    let audit: AuditLog
    /// The account operations, on behalf of an actor (`user:ID`).
    let operations: @Sendable (_ actor: String) -> DatabaseAdminOperations
    /// Tells the owner of a change (`account_deleted`, `password_changed`, `sign_in_method_removed`), by email.
    let notify: @Sendable (User, MessageTemplate) async throws -> Void
    /// How recent a sign-in sensitive changes need.
    let policy: AccountPolicy
    /// The account's second factors: where it has one, a sensitive change needs a sign-in that used it.
    let authenticators: AuthenticatorStore
    /// Checks the current password of a password change, with the sign-in's limits per account and source.
    let authenticator: PasswordAuthenticator
    /// Sends and checks the codes of a new email address or phone number.
    let contactChange: ContactChange
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    let clock: UnixClock

    static let scope = "account"
    static let prefix = "/account/v1"

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("/openapi/account.json") { _, _ in
            var response = Response(status: .ok, body: .init(byteBuffer: .init(string: PackageResources.contents("account-openapi.json"))))
            response.headers[.contentType] = "application/json"
            return response
        }
        router.get(RouterPath(stringLiteral: Self.prefix)) { request, _ in
            try await answer(request) { user, operations in JSONResponse.make(try await operations.user(id: user.id)) }
        }
        router.patch(RouterPath(stringLiteral: Self.prefix)) { request, _ in
            try await answer(request) { user, operations in
                let change = try await JSONRequest.decode(ProfileChange.self, from: request)
                if let locale = change.locale { _ = try await operations.setLocale(of: user.id, to: locale) }
                return JSONResponse.make(
                    try await operations.setNames(of: user.id, name: change.name, givenName: change.givenName, familyName: change.familyName))
            }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix)) { request, _ in
            try await answer(request, recentSignIn: true) { user, operations in
                try await operations.deleteUser(id: user.id)
                try await notify(user, .accountDeleted)
                return Response(status: .noContent)
            }
        }
        router.post(RouterPath(stringLiteral: Self.prefix + "/password")) { request, context in
            let source = ClientAddress(of: request, context: context, trusting: proxies)
            return try await answer(request, recentSignIn: true) { user, operations in
                try await changePassword(of: user, request: request, source: source, operations: operations)
            }
        }
        for contact in [ContactChange.Contact.email, .phone] {
            let path = Self.prefix + "/" + contact.rawValue
            router.post(RouterPath(stringLiteral: path)) { request, _ in
                try await answer(request, recentSignIn: true) { user, _ in
                    let body = try await JSONRequest.decode(ContactBody.self, from: request)
                    let pending = try await Self.refusing { try contactChange.pending(contact, typed: body.value(for: contact) ?? "", of: user) }
                    try await Self.refusing { try await contactChange.send(pending, key: "api:" + user.id) }
                    return JSONResponse.make(CodeSent(sentTo: pending.address), status: .accepted)
                }
            }
            router.post(RouterPath(stringLiteral: path + "/verification")) { request, context in
                let source = ClientAddress(of: request, context: context, trusting: proxies)
                return try await answer(request) { user, operations in
                    let body = try await JSONRequest.decode(ContactBody.self, from: request)
                    let pending = try await Self.refusing { try contactChange.pending(contact, typed: body.value(for: contact) ?? "", of: user) }
                    try await Self.refusing {
                        try await contactChange.confirm(
                            pending, code: body.code ?? "", key: "api:" + user.id, user: user, source: source, operations: operations)
                    }
                    return JSONResponse.make(try await operations.user(id: user.id))
                }
            }
        }
        router.get(RouterPath(stringLiteral: Self.prefix + "/identities")) { request, _ in
            try await answer(request) { user, operations in JSONResponse.make(Items(items: try await operations.identities(of: user.id))) }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix + "/identities/:provider")) { request, context in
            let provider = try context.parameters.require("provider")
            return try await answer(request, recentSignIn: true) { user, operations in
                try await operations.unlinkIdentity(at: provider, of: user.id)
                try await notify(user, .signInMethodRemoved)
                return Response(status: .noContent)
            }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix + "/app-sign-ins/:grant")) { request, context in
            let grant = try context.parameters.require("grant")
            return try await answer(request) { user, operations in
                _ = try await operations.revokeGrant(grant, of: user.id)
                return Response(status: .noContent)
            }
        }
        router.get(RouterPath(stringLiteral: Self.prefix + "/devices")) { request, _ in
            try await answer(request) { user, operations in JSONResponse.make(Items(items: try await operations.devices(of: user.id))) }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix + "/devices/:device")) { request, context in
            let device = try context.parameters.require("device")
            return try await answer(request, recentSignIn: true) { user, operations in
                try await operations.deleteOwnDevice(device, of: user.id)
                try await notify(user, .signInMethodRemoved)
                return Response(status: .noContent)
            }
        }
        router.get(RouterPath(stringLiteral: Self.prefix + "/passkeys")) { request, _ in
            try await answer(request) { user, operations in JSONResponse.make(Items(items: try await operations.passkeys(of: user.id))) }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix + "/passkeys/:passkey")) { request, context in
            let passkey = try context.parameters.require("passkey")
            return try await answer(request, recentSignIn: true) { user, operations in
                try await operations.removeOwnPasskey(passkey, of: user.id)
                try await notify(user, .signInMethodRemoved)
                return Response(status: .noContent)
            }
        }
        router.get(RouterPath(stringLiteral: Self.prefix + "/consents")) { request, _ in
            try await answer(request) { user, operations in
                JSONResponse.make(Items(items: try await operations.consents(of: user.id)))
            }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix + "/consents/:client")) { request, context in
            let client = try context.parameters.require("client")
            return try await answer(request) { user, operations in
                try await operations.revokeConsent(to: client, of: user.id)
                return Response(status: .noContent)
            }
        }
        router.get(RouterPath(stringLiteral: Self.prefix + "/sessions")) { request, _ in
            try await answer(request) { user, operations in
                JSONResponse.make(
                    Sessions(browserSessions: try await operations.browserSessions(of: user.id), appSignIns: try await operations.grants(of: user.id)))
            }
        }
        router.delete(RouterPath(stringLiteral: Self.prefix + "/sessions/:session")) { request, context in
            let session = try context.parameters.require("session")
            return try await answer(request) { user, operations in
                try await operations.endBrowserSession(session, of: user.id)
                return Response(status: .noContent)
            }
        }
        router.get(RouterPath(stringLiteral: Self.prefix + "/events")) { request, _ in
            try await answer(request) { user, _ in
                let query = FormParameters(encoded: request.uri.query ?? "")
                var limit = AccountPage.eventsShown
                if let text = query["limit"] {
                    guard let value = Int(text), (1...1000).contains(value) else { throw OAuthError.invalidRequest("limit must be 1 to 1000.") }
                    limit = value
                }
                return JSONResponse.make(Items(items: try await audit.recent(of: user.id, limit: limit)))
            }
        }
    }

    /// `POST /account/v1/password`: the current password, checked like a sign-in's (its limits per account and
    /// source), and the new one, checked against the policy. Every session and token of the account ends, this
    /// one's too: the app signs in again with the new password. The owner gets a notice.
    private func changePassword(of user: User, request: Request, source: ClientAddress, operations: DatabaseAdminOperations) async throws -> Response {
        let body = try await JSONRequest.decode(PasswordChange.self, from: request)
        guard user.hasPassword else {
            throw AdminProblem.conflict("The account has no password yet: choose one with “Forgot your password?” when you sign in.")
        }
        switch try await authenticator.authenticate(username: user.username, password: body.currentPassword, source: source, devices: [], clientID: nil) {
        case .authenticated: break
        case .invalidCredentials: throw OAuthError(.invalidRequest, "The current password is incorrect.")
        case .throttled:
            throw OAuthError(.tooManyAttempts, LoginMessages.english(LoginMessages.throttled))
        case .locked: throw OAuthError(.accountLocked, LoginMessages.english(LoginMessages.locked))
        }
        guard body.newPassword != body.currentPassword else { throw AdminProblem.badRequest("Choose a password different from your current one.") }
        try await operations.setPassword(body.newPassword, of: user.id)
        try await notify(user, .passwordChanged)
        return Response(status: .noContent)
    }

    /// The body of a new email address or phone number, and of its code.
    struct ContactBody: ClosedJSONBody, Sendable {
        typealias Members = CodingKeys
        var email, phoneNumber, code: String?

        func value(for contact: ContactChange.Contact) -> String? { contact == .email ? email : phoneNumber }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case email, code
            case phoneNumber = "phone_number"
        }
    }

    /// Where a code went.
    struct CodeSent: Encodable, Sendable {
        var sentTo: String

        enum CodingKeys: String, CodingKey { case sentTo = "sent_to" }
    }

    /// Runs `body`, answering a contact change's refusal as the OAuth error of its kind.
    private static func refusing<Value>(_ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let refusal as ContactChange.Refusal {
            var error =
                switch refusal.status {
                case .unauthorized: OAuthError(.invalidCode, refusal.message.english)
                case .tooManyRequests: OAuthError(.tooManyAttempts, refusal.message.english)
                case .gone: OAuthError(.expiredCode, refusal.message.english)
                default: OAuthError(.invalidRequest, refusal.message.english)
                }
            if refusal.status == .conflict { error.status = .conflict }
            throw error
        }
    }

    /// The body of a password change.
    struct PasswordChange: ClosedJSONBody, Sendable {
        typealias Members = CodingKeys
        var currentPassword, newPassword: String

        enum CodingKeys: String, CodingKey, CaseIterable {
            case currentPassword = "current_password"
            case newPassword = "new_password"
        }
    }

    /// The names a person may change on their profile; any other member is refused.
    struct ProfileChange: ClosedJSONBody, Sendable {
        typealias Members = CodingKeys
        var name, givenName, familyName: String?
        /// A shipped language's tag, or empty to follow the browser.
        var locale: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, locale
            case givenName = "given_name"
            case familyName = "family_name"
        }

        /// Each member is a text or absent: `null` is refused (an empty text clears a name, or makes the language the
        /// browser's again), so that nobody believes a `null` changed something.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String? {
                guard container.contains(key) else { return nil }
                return try container.decode(String.self, forKey: key)
            }
            name = try text(.name)
            givenName = try text(.givenName)
            familyName = try text(.familyName)
            locale = try text(.locale)
        }
    }

    /// A list in an object, as the API's lists are.
    struct Items<Item: Encodable & Sendable>: Encodable, Sendable {
        var items: [Item]
    }

    /// Where the person is signed in.
    struct Sessions: Encodable, Sendable {
        var browserSessions: [ActiveSessions.BrowserSessionSummary]
        var appSignIns: [ActiveSessions.Grant]

        enum CodingKeys: String, CodingKey {
            case browserSessions = "browser_sessions"
            case appSignIns = "app_sign_ins"
        }
    }

    /// Runs `body` for the user of the request's access token, when it is active, presented as its binding requires
    /// (a DPoP proof of this request), carries the `account` scope and names a user who may sign in; with
    /// `recentSignIn`, when its sign-in is younger than `account.reauthenticate_after`.
    private func answer(
        _ request: Request, recentSignIn: Bool = false, _ body: (User, DatabaseAdminOperations) async throws -> Response
    ) async throws -> Response {
        let presented: PresentedAccessToken?
        do {
            presented = try PresentedAccessToken.of(request)
        } catch {
            throw error.oauthError(presentedWithDPoP: false, nonce: proofs.nonces?.current)
        }
        func refuse(_ code: OAuthError.Code, _ description: String) -> OAuthError {
            var error = proofs.resourceRefusal(code, description, scheme: presented?.scheme)
            error.requiredScope = Self.scope
            return error
        }
        guard let presented else { throw refuse(.invalidToken, "No access token was sent: send one with the account scope.") }
        // A token for a resource (RFC 8707) is for that API only.
        guard let (record, user) = try await tokens.activeAccessTokenWithUser(presented.token), record.audience == nil else {
            throw refuse(.invalidToken, "The access token is invalid, expired, revoked, or was issued for another resource.")
        }
        let nonce: String?
        do {
            nonce = try await presented.checkBinding(to: record.jkt, request: request, path: request.uri.path, proofs: proofs)
        } catch {
            throw error.oauthError(presentedWithDPoP: presented.scheme == .dpop, nonce: proofs.nonces?.current)
        }
        guard record.scopes.contains(Self.scope), record.userID != nil else {
            throw refuse(.insufficientScope, "The access token was not granted the account scope.")
        }
        guard let user, !user.isLocked else { throw refuse(.invalidToken, "The access token's user is locked or no longer exists.") }
        if recentSignIn, clock.now() - (record.authTime ?? 0) > policy.reauthenticateAfter {
            var error = refuse(.insufficientUserAuthentication, "This change needs a recent sign-in: sign in again, then retry.")
            error.maxAge = policy.reauthenticateAfter
            throw error
        }
        // A way into the account changes only with the account's strongest proof: its second factor, where it has one
        // (an app holding a password-only token could otherwise move the address and recover the account).
        if recentSignIn, !record.methods.contains("mfa"), try await !authenticators.enrolledFactors(userID: user.id).isEmpty {
            var error = refuse(.insufficientUserAuthentication, "This change needs a sign-in with your second factor: sign in again with it, then retry.")
            error.acrValues = [LoginFlow.multiFactorACR]
            error.maxAge = policy.reauthenticateAfter
            throw error
        }
        do {
            var response = try await body(user, operations("user:\(user.id)"))
            if let nonce { response.headers[.dpopNonce] = nonce }
            return response
        } catch let problem as AdminProblem {
            var error = OAuthError(problem.status == .notFound ? .notFound : .invalidRequest, problem.detail)
            error.status = problem.status
            throw error
        }
    }
}
