import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Logging

/// The hosted sign-in page: the login flow rendered as HTML forms, for browsers sent by `/authorize`.
///
/// The flow is bound to the browser by a secret cookie, which every form also carries as its CSRF token.
struct LoginController: Sendable {
    let flows: FlowStore
    let loginFlow: LoginFlow
    let sessions: BrowserSessionStore
    let responder: AuthorizationResponder
    /// The QR sign-ins whose pages are open on this node.
    let appLoginWatcher: AppLoginWatcher
    /// Seconds the QR code's access code is shown for (`authenticator.access_code_lifetime`).
    let accessCodeLifetime: Int64
    let cookies: CookieSettings
    let deviceCookies: DeviceCookie
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    /// The language each page is in.
    let localizer: Localizer
    /// Seconds a browser session lives (`token_lifetimes.session`).
    let sessionLifetime: Int64
    let logger: Logger

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/login") { request, _ in try await show(request) }
        router.post("/login") { request, context in try await submit(request, source: ClientAddress(of: request, context: context, trusting: proxies)) }
        router.get("/login/app-status") { request, _ in try await appLoginStatus(request) }
        router.get(RouterPath(LoginFlow.emailLinkPath)) { request, context in
            try await emailLink(request, source: ClientAddress(of: request, context: context, trusting: proxies))
        }
    }

    /// The link in an email sign-in's message. In the browser that asked (its cookie binds the flow), at the code
    /// node, it submits the code like the form would (counted like any other guess); anywhere else it signs in
    /// nothing and says where to enter the code, so a mail scanner or a forwarded message opening it gets no session.
    func emailLink(_ request: Request, source: ClientAddress) async throws -> Response {
        let parameters = FormParameters(encoded: request.uri.query ?? "")
        let code = String((parameters["code"] ?? "").filter(\.isNumber).prefix(12))
        if let id = parameters["flow"], let binding = cookies.value(cookies.loginName, in: request),
            let state = try await flows.find(id, owner: .browser(binding: binding)), state.step == .emailSignInCode
        {
            return try await run(
                id, state: state, binding: binding, action: FlowActionID.submit.rawValue, values: ["code": .text(code)], request: request, source: source)
        }
        let wording = localizer.wording(for: request)
        return PageRenderer.page(title: wording("page.email_link.title").text, template: "email-link", ["code": code], wording: wording)
    }

    func show(_ request: Request) async throws -> Response {
        let parameters = FormParameters(encoded: request.uri.query ?? "")
        guard let id = parameters["flow"], let binding = cookies.value(cookies.loginName, in: request),
            let state = try await flows.find(id, owner: .browser(binding: binding))
        else {
            return PageRenderer.error("page.sign_in_expired.title", LoginMessages.hostedExpired, wording: localizer.wording(for: request))
        }
        let wording = try await wording(for: request, state: state)
        return FlowPage.render(loginFlow.speaking(wording).node(for: state), flowID: id, csrfToken: binding, action: "/login", wording: wording)
    }

    /// The language of a flow's pages: the request's `ui_locales`, the proven person's choice, the browser's, the
    /// server's default.
    func wording(for request: Request, state: FlowStore.LoginState) async throws -> Wording {
        localizer.wording(for: request, requested: state.request.uiLocales, preference: try await loginFlow.preferredLocale(of: state))
    }

    /// The live status of the QR code the flow's page shows (``AppLoginStatusStream``), for this browser only.
    func appLoginStatus(_ request: Request) async throws -> Response {
        let parameters = FormParameters(encoded: request.uri.query ?? "")
        guard let id = parameters["flow"], let binding = cookies.value(cookies.loginName, in: request),
            let state = try await flows.find(id, owner: .browser(binding: binding)), let sessionID = Self.appSession(of: state)
        else {
            return PageRenderer.error("page.sign_in_expired.title", LoginMessages.hostedExpired, status: .notFound, wording: localizer.wording(for: request))
        }
        return AppLoginStatusStream(watcher: appLoginWatcher, accessCodeLifetime: accessCodeLifetime).response(sessionID: sessionID, flowID: id)
    }

    /// The session the authenticator app answers for this flow: the QR code's, or the push's.
    static func appSession(of state: FlowStore.LoginState) -> String? {
        if case .signIn(let pending?) = state.journey { return pending.sessionID }
        return state.secondFactor.push?.sessionID
    }

    func submit(_ request: Request, source: ClientAddress) async throws -> Response {
        let form: FormParameters
        do {
            form = try await FormParameters.body(of: request)
        } catch {
            return PageRenderer.error("page.invalid_request.title", "page.form_unreadable", wording: localizer.wording(for: request))
        }
        // CSRF: the form must carry the same secret as the cookie that binds the flow to this browser.
        guard let binding = cookies.value(cookies.loginName, in: request),
            let token = form["csrf_token"], ConstantTime.equals(token, binding),
            let id = form["flow"],
            let state = try await flows.find(id, owner: .browser(binding: binding))
        else {
            return PageRenderer.error(
                "page.sign_in_expired.title", LoginMessages.hostedExpired, status: .forbidden, wording: localizer.wording(for: request))
        }
        let node = loginFlow.node(for: state)
        let action = form["action"] ?? node.primaryAction?.id ?? FlowActionID.submit.rawValue
        return try await run(id, state: state, binding: binding, action: action, values: FlowPage.values(of: node, in: form), request: request, source: source)
    }

    /// Applies a submission to the browser's flow `id` (bound by `binding`, checked by the caller) and answers with
    /// the page or redirect it leads to: the next node, the node again, or the client's redirect after a sign-in.
    func run(
        _ id: String, state: FlowStore.LoginState, binding: String, action: String, values: [String: FieldValue], request: Request, source: ClientAddress
    ) async throws -> Response {
        let device = deviceCookies.verify(cookies.value(cookies.deviceName, in: request))
        let wording = try await wording(for: request, state: state)
        let flow = loginFlow.submitted(from: source, devices: device.map { [$0] } ?? [], userAgent: request.headers[.userAgent]).speaking(wording)
        let previous = cookies.value(cookies.sessionName, in: request)
        let submitted: LoginFlow.Submitted<Response>
        do {
            // The browser session and the authorization code are made in the submission's transaction.
            submitted = try await flow.submit(id, state: state, action: action, values: values) {
                [sessions, responder, cookies, sessionLifetime] user, state in
                if let authTime = state.consent?.sessionAuthTime {
                    // Only consent was asked, of someone this browser's session signed in: that sign-in stands as it
                    // was, while the session does (signed out meanwhile, nothing is issued and the flow stays).
                    guard let previous, let session = try await sessions.find(id: previous), session.userID == user.id else {
                        throw OAuthError.invalidRequest("You signed out while this page was open. Go back to the application and sign in again.")
                    }
                    return try await responder.success(
                        for: state.request, userID: user.id, authTime: authTime, methods: state.methods, sessionID: session.sid, afterPost: true)
                }
                let started = try await sessions.start(userID: user.id, methods: state.methods, lifetime: sessionLifetime, replacing: previous)
                var response: Response
                if let device = state.request.deviceAuthorizationID {
                    // A device's user code: the person now confirms the device on the page that asked for the sign-in.
                    response = Redirect.to(DeviceVerificationPage.confirmationPath(device), afterPost: true)
                } else if let path = state.request.returnPath {
                    // A sign-in for a page of this server (the account page): back there, signed in.
                    response = Redirect.to(path, afterPost: true)
                } else {
                    response = try await responder.success(
                        for: state.request, userID: user.id, authTime: started.session.authTime, methods: started.session.methods,
                        sessionID: started.session.sid, afterPost: true)
                }
                response.headers.append(cookies.setCookie(cookies.sessionName, started.id, maxAge: sessionLifetime))
                return response
            }
        } catch let error as OAuthError {
            return PageRenderer.error(title: wording("page.invalid_request.title").text, message: error.description, wording: wording)
        }
        switch submitted.outcome {
        case .next, .superseded:
            // Post/redirect/get, so reloading the next page never resubmits this one; a submission another one beat
            // shows the flow where that one left it.
            return Redirect.to("/login?flow=\(id)", afterPost: true)
        case .retry(let node, let problem):
            return FlowPage.render(node, flowID: id, csrfToken: binding, action: "/login", status: Self.status(for: problem), wording: wording)
        case .gone:
            return PageRenderer.error("page.sign_in_expired.title", LoginMessages.hostedExpired, wording: wording)
        case .failed(let message):
            return PageRenderer.error(
                "page.sign_in_stopped.title", "page.sign_in_stopped.message", ["reason": message], status: .tooManyRequests, wording: wording)
        case .refused(let error, let description):
            let title = wording("page.sign_in_refused.title").text
            guard state.request.deviceAuthorizationID == nil else {
                return PageRenderer.error(
                    title: title, message: wording("page.sign_in_refused.device", ["reason": description]).text, status: .forbidden, wording: wording)
            }
            guard state.request.returnPath == nil else { return PageRenderer.error(title: title, message: description, status: .forbidden, wording: wording) }
            return responder.failure(
                redirectURI: state.request.redirectURI, state: state.request.state, error: error, description: description, afterPost: true)
        case .authenticated(let user, let state):
            guard var response = submitted.signedIn else { throw FlowEngineError.signInNotRecorded }
            logger.info("User signed in", metadata: ["user": "\(user.id)", "client": "\(state.request.clientID)"])
            // This browser now knows the account: its wrong passwords are counted apart from everyone else's.
            if device?.userID != user.id {
                response.headers.append(
                    cookies.setCookie(
                        cookies.deviceName, deviceCookies.issue(userID: user.id),
                        maxAge: CookieSettings.deviceCookieLifetime))
            }
            return response
        }
    }

    static func status(for problem: LoginFlow.Problem) -> HTTPResponse.Status {
        switch problem {
        case .invalidInput: .badRequest
        case .invalidCredentials, .invalidCode: .unauthorized
        case .throttled: .tooManyRequests
        case .locked: .forbidden
        case .waiting: .ok
        case .notApproved: .conflict
        case .upstreamUnavailable: .badGateway
        }
    }
}
