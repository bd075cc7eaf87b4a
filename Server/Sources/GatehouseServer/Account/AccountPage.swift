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
/// form carries a token bound to the browser by a cookie (CSRF); sensitive changes (the password, a factor, the email
/// address or phone number, deleting the account) need a sign-in younger than `account.reauthenticate_after`, or the
/// person signs in again first.
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
    /// Sends and checks the codes of a new email address or phone number.
    let contactChange: ContactChange
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

    /// The pages' words, in the language the person chose or their browser's.
    let localizer: Localizer

    /// The person this browser's session signed in, with the session and its cookie.
    struct SignedIn {
        var sessionID: String
        var session: BrowserSession
        var user: User

        /// The first digits of the session's digest: how the session lists name it.
        var handle: String { String(TokenDigest.hex(sessionID).prefix(ActiveSessions.handleLength)) }
    }

    func signedIn(_ request: Request) async throws -> SignedIn? {
        guard let id = cookies.value(cookies.sessionName, in: request), let session = try await sessions.find(id: id),
            let user = try await users.find(id: session.userID), !user.isLocked
        else { return nil }
        return SignedIn(sessionID: id, session: session, user: user)
    }

    // MARK: - The page

    /// The page; `problem` says why the form just posted was not taken (answered with `status`); `pending`, a new
    /// address waiting for its code.
    func show(
        _ request: Request, problem: MessageReference? = nil, status: HTTPResponse.Status = .ok, pending: ContactChange.Pending? = nil
    ) async throws -> Response {
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
        let devices = try await operations.devices(of: user.id)
        var names: [String: String] = [:]
        for id in Set(consents.map(\.clientID) + grants.map(\.clientID)) { names[id] = try await clients.find(id: id)?.name ?? id }

        let token = cookies.sessionFormToken(.account, in: request) ?? ""
        let query = FormParameters(encoded: request.uri.query ?? "")
        let say = localizer.wording(for: request, preference: user.locale)
        var values: [String: Any] = [
            "csrfToken": token, "action": Self.path, "username": user.username, "email": user.email, "emailVerified": user.emailVerified,
            "hasPassword": user.hasPassword, "minLength": passwords.minLength, "maxLength": passwords.maxLength,
            "apps": consents.map { consent -> [String: Any] in
                [
                    "clientID": consent.clientID, "name": names[consent.clientID] ?? consent.clientID,
                    "scopes": consent.scopes.map { ScopeDescriptions.describe($0, in: say) },
                    "since": say("account.apps.since", ["date": say.date(consent.grantedAt)]).text,
                    "revoke": say("account.apps.revoke", ["name": names[consent.clientID] ?? consent.clientID]).text,
                ]
            },
            "sessions": browserSessions.map { session -> [String: Any] in
                [
                    "id": session.id, "isCurrent": session.id == current.handle, "methods": session.methods.joined(separator: " "),
                    "signedIn": say.date(session.authenticatedAt), "lastSeen": say.date(session.lastSeenAt),
                    "browser": session.userAgent ?? "", "address": session.address ?? "",
                    "label": say("account.sessions.other", ["id": session.id]).text,
                    "from": say("account.sessions.from", ["address": session.address ?? ""]).text,
                    "signOut": say("account.sessions.sign_out", ["id": session.id]).text,
                ]
            },
            "hasOtherSessions": browserSessions.contains { $0.id != current.handle },
            "hasGrants": !grants.isEmpty,
            "factors": Self.removable(factors).map { factor -> [String: Any] in
                let label = say(Self.nameKey(of: factor)).text
                return ["id": factor.rawValue, "label": label, "remove": say("account.two_step.remove", ["factor": label]).text]
            },
            "hasFactors": !factors.isEmpty,
            // The journey that adds one is the one that changes two-step verification, where the policy offers passkeys.
            "passkeysOffered": loginFlow.settings.signOnPolicy(for: Self.clientID).factors.contains(.passkey),
            "passkeys": passkeys.map { passkey -> [String: Any] in
                [
                    "id": passkey.id, "name": passkey.name,
                    "dates": say("account.passkeys.dates", ["added": say.date(passkey.createdAt), "used": say.date(passkey.lastUsedAt)]).text,
                    "rename": say("account.passkeys.rename", ["name": passkey.name]).text,
                    "remove": say("account.passkeys.remove", ["name": passkey.name]).text,
                ]
            },
            "devices": devices.map { device -> [String: Any] in
                let name = device.deviceName ?? say("account.devices.unnamed").text
                let details = say(
                    "account.devices.details",
                    ["added": say.date(device.createdAt), "used": say.date(device.lastUsedAt), "state": device.state])
                return ["id": device.id, "name": name, "details": details.text, "remove": say("account.devices.remove", ["name": name]).text]
            },
            "identities": identities.map { identity -> [String: Any] in
                [
                    "provider": identity.providerID,
                    "details": say("account.identities.details", ["email": identity.email ?? "", "linked": say.date(identity.createdAt)]).text,
                    "unlink": say("account.identities.unlink", ["provider": identity.providerID]).text,
                ]
            },
            "grants": grants.map { grant -> [String: Any] in
                [
                    "id": grant.id, "name": names[grant.clientID] ?? grant.clientID,
                    "lastUsed": say("account.sessions.app_last_used", ["date": say.date(grant.lastIssuedAt)]).text,
                    "signOut": say("account.sessions.app_sign_out", ["name": names[grant.clientID] ?? grant.clientID]).text,
                ]
            },
            "events": events.map { event -> [String: Any] in
                ["type": event.type.rawValue, "when": say.date(event.occurredAt), "address": event.address ?? ""]
            },
        ]
        values["languages"] = Language.allCases.map { language -> [String: Any] in
            ["tag": language.tag, "name": language.endonym, "selected": user.locale.flatMap { Language(tag: $0) } == language]
        }
        values["chosenLanguage"] = user.locale.flatMap { Language(tag: $0) } != nil
        if let pending {
            if pending.contact == .email {
                values["pendingEmail"] = pending.address
                values["pendingEmailInfo"] = say("account.email.pending_info", ["address": pending.address]).text
                values["pendingEmailLabel"] = say("account.email.code_label", ["address": pending.address]).text
            } else {
                values["pendingPhone"] = pending.address
                values["pendingPhoneInfo"] = say("account.phone.pending_info", ["number": pending.address]).text
                values["pendingPhoneLabel"] = say("account.phone.code_label", ["number": pending.address]).text
            }
        }
        if let name = user.name { values["name"] = name }
        if let given = user.givenName { values["givenName"] = given }
        if let family = user.familyName { values["familyName"] = family }
        if let phone = user.phoneNumber { values["phone"] = phone }
        if let notice = query["done"].flatMap({ Self.notices[$0] }) { values["notice"] = say(notice).text }
        if let problem = problem ?? query["problem"].flatMap({ Self.problems[$0] }).map({ MessageReference($0) }) { values["problem"] = say(problem).text }
        return PageRenderer.page(title: say("account.title").text, template: "account", values, status: status, wording: say)
    }

    /// What the page says after a change (`done=`), and about a form it could not take (`problem=`), as catalog keys:
    /// fixed words, so a link cannot make the page say anything else.
    static let notices = [
        "app_revoked": "account.notice.app_revoked",
        "session_ended": "account.notice.session_ended",
        "others_ended": "account.notice.others_ended",
        "grant_revoked": "account.notice.grant_revoked",
        "password_changed": "account.notice.password_changed",
        "two_step_changed": "account.notice.two_step_changed",
        "factor_removed": "account.notice.factor_removed",
        "passkey_renamed": "account.notice.passkey_renamed",
        "passkey_removed": "account.notice.passkey_removed",
        "identity_unlinked": "account.notice.identity_unlinked",
        "device_removed": "account.notice.device_removed",
        "email_changed": "account.notice.email_changed",
        "names_changed": "account.notice.names_changed",
        "phone_changed": "account.notice.phone_changed",
        "language_changed": "account.notice.language_changed",
    ]
    static let problems = [
        "confirm": "account.problem.confirm",
        "gone": "account.problem.gone",
    ]

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
            devices: try await operations.devices(of: id), events: try await audit.events(AuditLog.Filter(userID: id), limit: 10_000))
        var response = JSONResponse.make(data)
        response.headers[.contentDisposition] = "attachment; filename=\"account-\(current.user.username).json\""
        response.headers[.cacheControl] = "no-store"
        return response
    }

    // MARK: - Signing in

    /// A flow of `kind` on the hosted pages that comes back to the page (saying `done`): a sign-in for anyone when
    /// `user` is `nil`, or again for `user` (a sensitive change after the allowed age), with their name filled in.
    func signIn(_ request: Request, as user: User?, kind: FlowKind = .login, done: String? = nil) async throws -> Response {
        var authorization = AuthorizationRequest(
            clientID: Self.clientID, redirectURI: Self.path, scopes: ["openid"], prompts: user == nil ? [] : ["login"], loginHint: user?.username)
        authorization.returnPath = Self.path + (done.map { "?done=" + $0 } ?? "")
        return try await cookies.hostedFlow(for: request, lifetime: flowLifetime, afterPost: request.method == .post) { binding in
            try await loginFlow.begin(authorization, kind: kind, clientName: "your account", owner: .browser(binding: binding)).id
        }
    }
}
