import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Logging

/// The `/device` page (RFC 8628 §3.3): the person types the code a TV or a terminal shows, signs in with the usual
/// flow (every factor the client's policy asks for), and allows or denies the device on a confirmation that names
/// the application and what it asks for.
///
/// Typed codes are guesses: each wrong one counts against the client address (`code_guesses`) and against everything
/// from that address (`source_throttling`), before the code is looked up. The forms carry the browser's sign-in
/// binding as their CSRF token, as the sign-in page does.
struct DeviceVerificationPage: Sendable {
    let clients: ClientStore
    let users: UserStore
    let deviceAuthorizations: DeviceAuthorizationStore
    /// What people allowed third-party clients: allowing a third-party device adds to it.
    let consents: ConsentStore
    let singleSignOn: SingleSignOn
    let loginFlow: LoginFlow
    let audit: AuditLog
    /// Where an answer and its audit event commit together.
    let database: any Database
    /// Counts wrong user codes per client address.
    let guesses: AttemptLimiter
    /// Wrong user codes per client address (`code_guesses`).
    let userCodeLimit: AttemptLimit
    /// Wrong passwords and codes per client address across everything (`source_throttling`).
    let sourceLimit: AttemptLimit
    let cookies: CookieSettings
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    /// Seconds the sign-in's binding cookie lives (`token_lifetimes.authorization_request`).
    let flowLifetime: Int64
    let logger: Logger
    /// The language each page is in.
    let localizer: Localizer

    static let path = "/device"

    /// The confirmation of the authorization `id`, where a sign-in for it ends.
    static func confirmationPath(_ id: String) -> String { path + "/confirm?id=" + id }

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/device") { request, _ in entryForm(request) }
        router.post("/device") { request, context in
            try await enter(request, source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        router.get("/device/confirm") { request, _ in try await showConfirmation(request) }
        router.post("/device/confirm") { request, _ in try await confirm(request) }
    }

    // MARK: - The code

    /// The form for the code; `verification_uri_complete` fills it in, and the person still presses Continue, so a
    /// link alone never starts anything.
    func entryForm(_ request: Request, code: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        let prefilled = code ?? query["user_code"].map { String($0.prefix(16)) } ?? ""
        let binding = binding(of: request)
        var values: [String: Any] = ["action": Self.path, "csrfToken": binding, "code": prefilled]
        if let error { values["error"] = error }
        let say = localizer.wording(for: request)
        var response = PageRenderer.page(title: say("device.code.title").text, template: "device-code", values, status: status, wording: say)
        response.headers.append(bindingCookie(binding))
        return response
    }

    /// A typed code: counted as a guess, looked up, and on to the sign-in or straight to the confirmation.
    func enter(_ request: Request, source: ClientAddress) async throws -> Response {
        guard let form = try? await FormParameters.body(of: request), let binding = checkedBinding(form, request) else {
            return PageRenderer.error("page.expired.title", "device.form_expired", status: .forbidden, wording: localizer.wording(for: request))
        }
        let typed = form["user_code"] ?? ""
        let counters = [
            guesses.counter("user_code", subject: source.subject, limit: userCodeLimit),
            guesses.counter("source", subject: source.subject, limit: sourceLimit),
        ]
        let ticket: AttemptLimiter.Ticket
        switch try await guesses.admit(counters) {
        case .blocked(let until, _):
            let minutes = guesses.minutesLeft(until: until)
            return entryForm(
                request, code: typed, error: localizer.wording(for: request)("device.code.blocked", ["minutes": "\(minutes)"]).text,
                status: .tooManyRequests)
        case .admitted(let admitted):
            ticket = admitted
        }
        let pending = try await deviceAuthorizations.find(userCode: typed)
        let settled = try await guesses.settle(ticket, correct: pending != nil)
        for block in settled.blocked {
            logger.notice("Too many wrong device codes: blocked", metadata: ["limit": "\(block.scope)", "until": "\(block.until)"])
        }
        guard let pending else {
            return entryForm(request, code: typed, error: localizer.wording(for: request)("device.code.invalid").text, status: .badRequest)
        }
        return try await proceed(to: pending, request: request, binding: binding)
    }

    // MARK: - The confirmation

    func showConfirmation(_ request: Request) async throws -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        guard let id = query["id"], let pending = try await deviceAuthorizations.find(id: id) else { return expired(request) }
        let authorization = signInRequest(for: pending, forceSignIn: false)
        guard let session = try await singleSignOn.usableSession(for: authorization, request: request) else {
            return try await signIn(to: pending, request: request, binding: binding(of: request), forceSignIn: false)
        }
        let client = try await clients.find(id: pending.clientID)
        let user = try await users.find(id: session.userID)
        let application = loginFlow.settings.branding.name(of: pending.clientID, registered: client?.name ?? pending.clientID)
        let binding = binding(of: request)
        let say = localizer.wording(for: request, preference: user?.locale)
        let signedInAs = say("device.consent.signed_in_as", ["username": Self.nameMark, "application": application]).text.components(separatedBy: Self.nameMark)
        var values: [String: Any] = [
            "application": application, "username": user?.username ?? "", "asks": pending.scopes.map { ScopeDescriptions.describe($0, in: say) },
            "heading": say("device.consent.heading", ["application": application]).text,
            // The account's name in bold, wherever the language puts it in the sentence.
            "signedInBefore": signedInAs.first ?? "", "signedInAfter": signedInAs.dropFirst().joined(),
            "notOurs": say("device.consent.third_party", ["application": application]).text,
            "action": "\(Self.path)/confirm", "csrfToken": binding, "id": pending.id, "isThirdParty": client?.isThirdParty == true,
        ]
        // A third-party application as its operator registered it, like the sign-in's consent node.
        if let logo = client?.logoURI { values["logoURI"] = logo }
        if let homepage = client?.homepage { values["homepage"] = homepage }
        var response = PageRenderer.page(
            title: say("device.consent.title", ["application": application]).text, template: "device-consent", values, wording: say)
        response.headers.append(bindingCookie(binding))
        return response
    }

    /// The person's answer: allow or deny for the signed-in account, or sign in as someone else first.
    func confirm(_ request: Request) async throws -> Response {
        guard let form = try? await FormParameters.body(of: request), let binding = checkedBinding(form, request) else {
            return PageRenderer.error("page.expired.title", "device.confirm_expired", status: .forbidden, wording: localizer.wording(for: request))
        }
        guard let id = form["id"], let pending = try await deviceAuthorizations.find(id: id) else { return expired(request) }
        let decision = form["decision"]
        if decision == "switch" { return try await signIn(to: pending, request: request, binding: binding, forceSignIn: true) }
        guard decision == "allow" || decision == "deny" else {
            return try await proceed(to: pending, request: request, binding: binding)
        }
        let authorization = signInRequest(for: pending, forceSignIn: false)
        guard let session = try await singleSignOn.usableSession(for: authorization, request: request) else {
            return try await signIn(to: pending, request: request, binding: binding, forceSignIn: false)
        }
        let approved = decision == "allow"
        let client = try await clients.find(id: pending.clientID)
        let thirdParty = client?.isThirdParty == true
        let answered = try await database.transaction { [deviceAuthorizations, consents, audit] _ in
            guard
                try await deviceAuthorizations.answer(
                    pending.id, approved: approved, userID: session.userID, authTime: session.authTime, methods: session.methods)
            else { return false }
            let scope = pending.scopes.joined(separator: " ")
            try await audit.record(
                approved ? .deviceAuthorizationApproved : .deviceAuthorizationDenied, user: session.userID, client: pending.clientID,
                actor: "user:\(session.userID)", details: ["scope": scope])
            // The device's confirmation is the consent of a third-party client: always asked, and remembered like the sign-in's.
            if thirdParty && approved {
                try await consents.grant(pending.scopes, to: pending.clientID, by: session.userID)
                try await audit.record(.consentGranted, user: session.userID, client: pending.clientID, details: ["scope": scope])
            }
            return true
        }
        guard answered else { return expired(request) }
        let application = loginFlow.settings.branding.name(of: pending.clientID, registered: client?.name ?? pending.clientID)
        let say = localizer.wording(for: request, preference: try await users.find(id: session.userID)?.locale)
        return approved
            ? PageRenderer.page(
                title: say("device.approved.title").text, template: "device-approved",
                ["heading": say("device.approved.heading", ["application": application]).text], wording: say)
            : PageRenderer.page(
                title: say("device.denied.title").text, template: "device-denied",
                ["message": say("device.denied.message", ["application": application]).text], wording: say)
    }

    // MARK: - Helpers

    /// Straight to the confirmation when this browser's session will do; otherwise the sign-in flow, which comes back to it.
    private func proceed(to pending: DeviceAuthorizationStore.Pending, request: Request, binding: String) async throws -> Response {
        let authorization = signInRequest(for: pending, forceSignIn: false)
        if try await singleSignOn.usableSession(for: authorization, request: request) != nil {
            return Redirect.to(Self.confirmationPath(pending.id), afterPost: request.method == .post)
        }
        return try await signIn(to: pending, request: request, binding: binding, forceSignIn: false)
    }

    /// The sign-in flow for `pending` (with `prompt=login` when `forceSignIn`), which comes back to the confirmation.
    private func signIn(
        to pending: DeviceAuthorizationStore.Pending, request: Request, binding: String, forceSignIn: Bool
    ) async throws -> Response {
        let authorization = signInRequest(for: pending, forceSignIn: forceSignIn)
        let client = try await clients.find(id: pending.clientID)
        let flow = try await loginFlow.begin(
            authorization, kind: .login, clientName: client?.name ?? pending.clientID, owner: .browser(binding: binding))
        var response = Redirect.to("/login?flow=\(flow.id)", afterPost: request.method == .post)
        response.headers.append(bindingCookie(binding))
        return response
    }

    /// The sign-in the device's client would get from `/authorize`: its scopes, its second-factor policy.
    private func signInRequest(for pending: DeviceAuthorizationStore.Pending, forceSignIn: Bool) -> AuthorizationRequest {
        AuthorizationRequest(
            clientID: pending.clientID, redirectURI: Self.confirmationPath(pending.id), scopes: pending.scopes,
            prompts: forceSignIn ? ["login"] : [], deviceAuthorizationID: pending.id)
    }

    private func binding(of request: Request) -> String {
        cookies.value(cookies.loginName, in: request) ?? SecureRandom.token()
    }

    /// The browser's binding, when the form carries the same one (CSRF).
    private func checkedBinding(_ form: FormParameters, _ request: Request) -> String? {
        guard let binding = cookies.value(cookies.loginName, in: request), let token = form["csrf_token"],
            ConstantTime.equals(token, binding)
        else { return nil }
        return binding
    }

    private func bindingCookie(_ binding: String) -> HTTPField {
        cookies.setCookie(cookies.loginName, binding, maxAge: flowLifetime)
    }

    /// Stands for the account's name in a sentence until the template sets it in bold.
    private static let nameMark = "\u{1}"

    private func expired(_ request: Request) -> Response {
        PageRenderer.error("device.expired.title", "device.expired.message", status: .gone, wording: localizer.wording(for: request))
    }
}
