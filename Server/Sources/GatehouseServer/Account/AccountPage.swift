import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The account page (`/account`): what the signed-in person sees and changes of their own account, server-rendered
/// like the sign-in pages and working without JavaScript — the profile, the applications they allowed (revoke one,
/// with its tokens), where they are signed in (sign out another browser, or every other one; end an app's sign-in),
/// their recent security events, a download of their data, and deleting the account.
///
/// Without a browser session the page starts a sign-in that comes back here. Its changes are the admin API's
/// operations (``DatabaseAdminOperations``) on the person's own account, recorded with `user:ID` as the actor. Every
/// form carries a token bound to the browser by a cookie (CSRF); deleting the account needs a sign-in younger than
/// `account.reauthenticate_after`, or the person signs in again first.
struct AccountPage: Sendable {
    let users: UserStore
    /// The second factors the person enrolled, for the page to name.
    let authenticators: AuthenticatorStore
    let clients: ClientStore
    let sessions: BrowserSessionStore
    let audit: AuditLog
    /// Where a change and its audit event commit together.
    let database: any Database
    /// The sign-in that comes back to the page.
    let loginFlow: LoginFlow
    /// The account operations, on behalf of an actor (`user:ID`).
    let operations: @Sendable (_ actor: String) -> DatabaseAdminOperations
    let cookies: CookieSettings
    let deviceCookies: DeviceCookie
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    let policy: AccountPolicy
    /// The rules a new password must pass (its form's length hints).
    let passwords: PasswordPolicy
    /// Seconds a browser session lives (`token_lifetimes.session`): this browser's new one after a password change.
    let sessionLifetime: Int64
    /// Seconds the sign-in's binding cookie lives (`token_lifetimes.authorization_request`).
    let flowLifetime: Int64
    let clock: UnixClock

    static let path = "/account"
    /// The client the page signs in as: not registered, so it asks no consent and follows the default sign-on policy.
    static let clientID = "gatehouse-account"
    /// How many security events the page lists.
    static let eventsShown = 20

    func addRoutes(to router: Router<some RequestContext>) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, _ in try await show(request) }
        router.post(RouterPath(stringLiteral: Self.path)) { request, context in
            try await change(request, source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        router.get(RouterPath(stringLiteral: Self.path + "/data")) { request, _ in try await download(request) }
    }

    /// The person this browser's session signed in, with the session and its cookie.
    private struct SignedIn {
        var sessionID: String
        var session: BrowserSession
        var user: User

        /// The first digits of the session's digest: how the session lists name it.
        var handle: String { String(TokenDigest.hex(sessionID).prefix(ActiveSessions.handleLength)) }
    }

    private func signedIn(_ request: Request) async throws -> SignedIn? {
        guard let id = cookies.value(cookies.sessionName, in: request), let session = try await sessions.find(id: id),
            let user = try await users.find(id: session.userID), !user.isLocked
        else { return nil }
        return SignedIn(sessionID: id, session: session, user: user)
    }

    // MARK: - The page

    /// The page; `problem` says why the form just posted was not taken (answered with `status`).
    func show(_ request: Request, problem: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        guard let current = try await signedIn(request) else { return try await signIn(request, as: nil) }
        let user = current.user
        let operations = operations("user:\(user.id)")
        let consents = try await operations.consents(of: user.id)
        let browserSessions = try await operations.browserSessions(of: user.id)
        let grants = try await operations.grants(of: user.id)
        let events = try await audit.recent(of: user.id, limit: Self.eventsShown)
        let factors = try await authenticators.enrolledFactors(userID: user.id).filter { $0 != .passkey && $0 != .recoveryCode }
        let passkeys = try await operations.passkeys(of: user.id)
        let identities = try await operations.identities(of: user.id)
        var names: [String: String] = [:]
        for id in Set(consents.map(\.clientID) + grants.map(\.clientID)) { names[id] = try await clients.find(id: id)?.name ?? id }

        let token = cookies.value(cookies.accountName, in: request) ?? SecureRandom.token()
        let query = FormParameters(encoded: request.uri.query ?? "")
        var values: [String: Any] = [
            "csrfToken": token, "action": Self.path, "username": user.username, "email": user.email, "emailVerified": user.emailVerified,
            "hasPassword": user.hasPassword, "minLength": passwords.minLength, "maxLength": passwords.maxLength,
            "apps": consents.map { consent -> [String: Any] in
                [
                    "clientID": consent.clientID, "name": names[consent.clientID] ?? consent.clientID,
                    "scopes": consent.scopes.map(ScopeDescriptions.describe), "since": Timestamp.format(consent.grantedAt),
                ]
            },
            "sessions": browserSessions.map { session -> [String: Any] in
                [
                    "id": session.id, "isCurrent": session.id == current.handle, "methods": session.methods.joined(separator: " "),
                    "signedIn": Timestamp.format(session.authenticatedAt), "lastSeen": Timestamp.format(session.lastSeenAt),
                ]
            },
            "hasOtherSessions": browserSessions.contains { $0.id != current.handle },
            "hasGrants": !grants.isEmpty,
            "factors": Self.removable(factors).map { factor -> [String: Any] in ["id": factor.rawValue, "label": Self.name(of: factor)] },
            "hasFactors": !factors.isEmpty,
            "passkeys": passkeys.map { passkey -> [String: Any] in
                ["id": passkey.id, "name": passkey.name, "added": Timestamp.format(passkey.createdAt), "lastUsed": Timestamp.format(passkey.lastUsedAt)]
            },
            "identities": identities.map { identity -> [String: Any] in
                ["provider": identity.providerID, "email": identity.email ?? "", "linked": Timestamp.format(identity.createdAt)]
            },
            "grants": grants.map { grant -> [String: Any] in
                ["id": grant.id, "name": names[grant.clientID] ?? grant.clientID, "lastUsed": Timestamp.format(grant.lastIssuedAt)]
            },
            "events": events.map { event -> [String: Any] in
                ["type": event.type.rawValue, "when": Timestamp.format(event.occurredAt), "address": event.address ?? ""]
            },
        ]
        if let name = user.name { values["name"] = name }
        if let phone = user.phoneNumber { values["phone"] = phone }
        if let notice = query["done"].flatMap(Self.notices.index(forKey:)).map({ Self.notices[$0].value }) { values["notice"] = notice }
        if let problem = problem ?? query["problem"].flatMap(Self.problems.index(forKey:)).map({ Self.problems[$0].value }) {
            values["problem"] = problem
        }
        var response = PageRenderer.page(title: "Your account", template: "account", values, status: status)
        response.headers.append(cookies.setCookie(cookies.accountName, token, maxAge: 3600))
        return response
    }

    /// What the page says after a change (`done=`), and about a form it could not take (`problem=`): fixed words, so
    /// a link cannot make the page say anything else.
    static let notices = [
        "app_revoked": "The application's access was revoked. It asks again if you sign in to it.",
        "session_ended": "That browser was signed out.",
        "others_ended": "Every other browser was signed out.",
        "grant_revoked": "The application's sign-in was ended.",
        "password_changed": "Your password was changed, and you were signed out everywhere else.",
        "two_step_changed": "Your two-step verification was changed.",
        "factor_removed": "That way of confirming it's you was removed.",
        "passkey_renamed": "The passkey was renamed.",
        "passkey_removed": "The passkey was removed.",
        "identity_unlinked": "The other provider's sign-in was unlinked.",
    ]
    static let problems = [
        "confirm": "To delete your account, type your username exactly.",
        "gone": "That was already removed.",
    ]

    // MARK: - Changes

    func change(_ request: Request, source: ClientAddress) async throws -> Response {
        guard let form = try? await FormParameters.body(of: request) else {
            return PageRenderer.error(title: "Invalid request", message: "The form could not be read.")
        }
        // CSRF: the form must carry the same secret as the browser's account cookie.
        guard let cookie = cookies.value(cookies.accountName, in: request), let token = form["csrf_token"], ConstantTime.equals(cookie, token) else {
            return PageRenderer.error(title: "Page expired", message: "The form expired. Open your account page again.", status: .forbidden)
        }
        guard let current = try await signedIn(request) else { return try await signIn(request, as: nil) }
        let user = current.user
        let operations = operations("user:\(user.id)")
        do {
            switch form["change"] {
            case "revoke_app":
                try await operations.revokeConsent(to: form["client_id"] ?? "", of: user.id)
                return Self.back("done=app_revoked")
            case "end_session":
                let handle = form["session"] ?? ""
                // This browser signs out at /logout, which clears its cookie too.
                guard handle != current.handle else { return Self.back("problem=gone") }
                try await operations.endBrowserSession(handle, of: user.id)
                return Self.back("done=session_ended")
            case "end_other_sessions":
                for session in try await operations.browserSessions(of: user.id) where session.id != current.handle {
                    try await operations.endBrowserSession(session.id, of: user.id)
                }
                return Self.back("done=others_ended")
            case "revoke_grant":
                _ = try await operations.revokeGrant(form["grant"] ?? "", of: user.id)
                return Self.back("done=grant_revoked")
            case "two_step":
                // The journey that changes two-step verification, on the hosted pages, signing in first; then back here.
                return try await signIn(request, as: user, kind: .enrollment, done: "two_step_changed")
            case "remove_factor":
                return try await removeFactor(current, form["factor"].flatMap(SecondFactor.init(rawValue:)), request: request)
            case "rename_passkey":
                _ = try await operations.renamePasskey(form["passkey"] ?? "", of: user.id, to: form["name"] ?? "")
                return Self.back("done=passkey_renamed")
            case "remove_passkey":
                let passkeys = try await operations.passkeys(of: user.id)
                let others = try await operations.identities(of: user.id)
                // Never the last way in: without a password or another provider, the last passkey stays.
                guard user.hasPassword || !others.isEmpty || passkeys.count > 1 else {
                    return try await show(request, problem: "This passkey is your only way to sign in: add another first.", status: .conflict)
                }
                try await operations.removePasskey(form["passkey"] ?? "", of: user.id)
                return Self.back("done=passkey_removed")
            case "unlink_identity":
                try await operations.unlinkIdentity(at: form["provider"] ?? "", of: user.id)
                return Self.back("done=identity_unlinked")
            case "password":
                return try await changePassword(current, form: form, request: request, source: source)
            case "delete":
                return try await delete(current, confirmation: form["confirm_username"] ?? "", request: request)
            default:
                return PageRenderer.error(title: "Invalid request", message: "The form asked for a change the account page does not make.")
            }
        } catch let problem as AdminProblem where problem.status == .notFound {
            return Self.back("problem=gone")
        } catch let problem as AdminProblem where problem.status == .conflict || problem.status == .badRequest {
            return try await show(request, problem: problem.detail, status: problem.status)
        }
    }

    /// Deletes the account: its name typed again, and a sign-in younger than `reauthenticate_after` (else the person
    /// signs in again and comes back). Its tokens, sessions, factors and consents go with it; the trail keeps the event.
    private func delete(_ current: SignedIn, confirmation: String, request: Request) async throws -> Response {
        guard confirmation.lowercased() == current.user.username.lowercased() else { return Self.back("problem=confirm") }
        guard clock.now() - current.session.authTime <= policy.reauthenticateAfter else { return try await signIn(request, as: current.user) }
        try await operations("user:\(current.user.id)").deleteUser(id: current.user.id)
        try await loginFlow.notify(current.user, .accountDeleted)
        var response = PageRenderer.page(title: "Account deleted", template: "account-deleted", [:])
        response.headers.append(cookies.clearCookie(cookies.sessionName))
        response.headers.append(cookies.clearCookie(cookies.accountName))
        return response
    }

    /// Changes the password: the current one checked as a sign-in's is (the same limits per account and per source),
    /// the new one against the password policy, a sign-in younger than `reauthenticate_after`. Every other session
    /// and token ends; this browser gets a new session, and the owner a notice.
    private func changePassword(_ current: SignedIn, form: FormParameters, request: Request, source: ClientAddress) async throws -> Response {
        let user = current.user
        guard clock.now() - current.session.authTime <= policy.reauthenticateAfter else { return try await signIn(request, as: user) }
        guard user.hasPassword else {
            return try await show(request, problem: "Your account has no password yet: choose one with “Forgot your password?” when you sign in.")
        }
        let given = form["current_password"] ?? "", chosen = form["new_password"] ?? ""
        let device = deviceCookies.verify(cookies.value(cookies.deviceName, in: request))
        let checked = try await loginFlow.authenticator.authenticate(
            username: user.username, password: given, source: source, devices: device.map { [$0] } ?? [], clientID: Self.clientID)
        switch checked {
        case .authenticated: break
        case .invalidCredentials: return try await show(request, problem: "The current password is incorrect.", status: .unauthorized)
        case .throttled: return try await show(request, problem: LoginMessages.throttled, status: .tooManyRequests)
        case .locked: return try await signIn(request, as: nil)
        }
        guard chosen != given else { return try await show(request, problem: "Choose a password different from your current one.", status: .badRequest) }
        do {
            try await operations("user:\(user.id)").setPassword(chosen, of: user.id)
        } catch let problem as AdminProblem where problem.status == .badRequest {
            return try await show(request, problem: problem.detail, status: .badRequest)
        }
        try await loginFlow.notify(user, .passwordChanged)
        // Every session ended with the old password, this one too: this browser, which just proved the password, gets a new one.
        let started = try await sessions.start(userID: user.id, methods: current.session.methods, lifetime: sessionLifetime, replacing: nil)
        var response = Self.back("done=password_changed")
        response.headers.append(cookies.setCookie(cookies.sessionName, started.id, maxAge: sessionLifetime))
        return response
    }

    /// The factors the page lists, one entry each: a phone is one factor whichever way its codes come.
    static func removable(_ factors: [SecondFactor]) -> [SecondFactor] {
        factors.filter { $0 != .voice && $0 != .passkey && $0 != .recoveryCode }
    }

    /// What the page calls `factor`.
    static func name(of factor: SecondFactor) -> String {
        switch factor {
        case .sms, .voice: "Codes to your phone"
        case .totp: "Authenticator app (with its recovery codes)"
        case .email, .passkey, .recoveryCode: factor.label
        }
    }

    /// Removes a second factor, after a recent sign-in; audited and told to the owner (whoever removed it could sign in).
    private func removeFactor(_ current: SignedIn, _ factor: SecondFactor?, request: Request) async throws -> Response {
        guard let factor else { return PageRenderer.error(title: "Invalid request", message: "The form named no second factor the page knows.") }
        guard clock.now() - current.session.authTime <= policy.reauthenticateAfter else { return try await signIn(request, as: current.user) }
        let user = current.user
        let removed = try await database.transaction { [authenticators, audit] _ in
            guard try await authenticators.remove(factor, userID: user.id) else { return false }
            try await audit.record(.factorRemoved, user: user.id, actor: "user:\(user.id)", details: ["factor": factor.rawValue])
            return true
        }
        guard removed else { return Self.back("problem=gone") }
        try await loginFlow.notify(user, .factorRemoved)
        return Self.back("done=factor_removed")
    }

    /// Back to the page after a change (post/redirect/get), with what to say.
    private static func back(_ query: String) -> Response {
        Redirect.to(path + "?" + query, afterPost: true)
    }

    // MARK: - Download

    /// Everything the account page shows and more, as one JSON document to keep.
    func download(_ request: Request) async throws -> Response {
        guard let current = try await signedIn(request) else { return try await signIn(request, as: nil) }
        let id = current.user.id
        let operations = operations("user:\(id)")
        let data = AccountData(
            user: try await operations.user(id: id), consents: try await operations.consents(of: id),
            browserSessions: try await operations.browserSessions(of: id), appSignIns: try await operations.grants(of: id),
            passkeys: try await operations.passkeys(of: id), identities: try await operations.identities(of: id),
            events: try await audit.events(AuditLog.Filter(userID: id), limit: 10_000))
        var response = JSONResponse.make(data)
        response.headers[.contentDisposition] = "attachment; filename=\"account-\(current.user.username).json\""
        response.headers[.cacheControl] = "no-store"
        return response
    }

    // MARK: - Signing in

    /// A flow of `kind` on the hosted pages that comes back to the page (saying `done`): a sign-in for anyone when
    /// `user` is `nil`, or again for `user` (a sensitive change after the allowed age), with their name filled in.
    private func signIn(_ request: Request, as user: User?, kind: FlowKind = .login, done: String? = nil) async throws -> Response {
        let binding = cookies.value(cookies.loginName, in: request) ?? SecureRandom.token()
        var authorization = AuthorizationRequest(
            clientID: Self.clientID, redirectURI: Self.path, scopes: ["openid"], prompts: user == nil ? [] : ["login"], loginHint: user?.username)
        authorization.returnPath = Self.path + (done.map { "?done=" + $0 } ?? "")
        let flow = try await loginFlow.begin(authorization, kind: kind, clientName: "your account", owner: .browser(binding: binding))
        var response = Redirect.to("/login?flow=\(flow.id)", afterPost: request.method == .post)
        response.headers.append(cookies.setCookie(cookies.loginName, binding, maxAge: flowLifetime))
        return response
    }
}
