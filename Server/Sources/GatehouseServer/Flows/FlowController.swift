import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Logging

/// The native flow API: an app starts a login flow with the parameters of an authorization request,
/// submits node after node as JSON, and receives an authorization code to exchange with its PKCE verifier. It is for
/// the service's own apps (first-party clients the operator registered): a third party, or a client that registered
/// itself, would read the person's password and answer consent in their name, so it signs people in with a browser.
struct FlowController: Sendable {
    let clients: ClientStore
    let flows: FlowStore
    let loginFlow: LoginFlow
    let responder: AuthorizationResponder
    let deviceCookies: DeviceCookie
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    /// The language each answer is in.
    let localizer: Localizer
    let clock: UnixClock
    let logger: Logger
    /// Sent as `iss` with the authorization code.
    let issuer: String

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        for kind in FlowKind.allCases {
            router.post("/flows/\(kind.rawValue)") { request, context in
                try await start(request, kind: kind, context: context)
            }
        }
        router.post("/flows/:flow") { request, context in
            try await submit(request, flowID: context.parameters.get("flow") ?? "", context: context)
        }
    }

    func start(_ request: Request, kind: FlowKind, context: some RequestContext) async throws -> Response {
        let body = try await JSONRequest.decode(FlowStartRequest.self, from: request)
        guard let client = try await clients.find(id: body.clientID) else {
            throw OAuthError.invalidRequest("No client is registered as \(body.clientID).")
        }
        // Whoever drives the flow API reads what the person types: only the operator's own apps may, never a third
        // party's, nor a client that registered itself.
        guard client.registeredByOperator, !client.isThirdParty else {
            throw OAuthError.unauthorizedClient(
                "The native flow API is for the service's own apps; \(client.id) is \(client.isThirdParty ? "a third-party" : "a self-registered") client. "
                    + "Send the person to the authorization endpoint in a browser instead.")
        }
        guard client.allowsRedirect(to: body.redirectURI) else {
            throw OAuthError.invalidRequest("The redirect URI is not registered for \(client.id).")
        }
        if (body.prompt ?? "").split(separator: " ").contains("none") {
            throw OAuthError.invalidRequest("A native flow always asks the person: prompt=none cannot be met; restore the stored session instead.")
        }
        // The same rules as the browser's authorization request.
        let parameters = FormParameters([
            ("response_type", "code"), ("client_id", body.clientID), ("redirect_uri", body.redirectURI), ("scope", body.scope),
            ("state", body.state), ("nonce", body.nonce), ("code_challenge", body.codeChallenge),
            ("code_challenge_method", body.codeChallengeMethod), ("login_hint", body.loginHint),
            ("acr_values", body.acrValues), ("prompt", body.prompt), ("max_age", body.maxAge.map(String.init)), ("dpop_jkt", body.dpopJKT),
            ("ui_locales", body.uiLocales),
        ])
        let validated: AuthorizationRequest
        switch AuthorizationController.validate(parameters, client: client, redirectURI: body.redirectURI) {
        case .success(let request): validated = request
        case .failure(let error): throw error
        }
        let wording = localizer.wording(for: request, requested: validated.uiLocales)
        let started = try await loginFlow.speaking(wording).begin(validated, kind: kind, clientName: client.name ?? client.id, owner: .client(client.id))
        return JSONResponse.make(FlowResponse(status: .continue, flowID: started.id, node: started.node))
    }

    func submit(_ request: Request, flowID: String, context: some RequestContext) async throws -> Response {
        let submission = try await JSONRequest.decode(FlowSubmission.self, from: request)
        guard let state = try await flows.find(flowID, owner: .client(submission.clientID)) else { return expired(localizer.wording(for: request)) }
        // Consent is the person's answer about a client, never the client's own (a flow here reaches it only when its
        // client became a third party after the flow began).
        guard state.step != .consent else {
            throw OAuthError.unauthorizedClient("A consent is given by the person in a browser, not through the flow API of the client it is about.")
        }
        let presented = submission.deviceTokens ?? []
        guard presented.count <= DeviceCookie.maximumPresented, presented.allSatisfy({ $0.utf8.count <= DeviceCookie.maximumLength }) else {
            throw OAuthError.invalidRequest("Send at most \(DeviceCookie.maximumPresented) device tokens of at most \(DeviceCookie.maximumLength) bytes each.")
        }
        let devices = deviceCookies.verify(all: presented)
        let flow = loginFlow.submitted(
            from: ClientAddress(of: request, context: context, trusting: proxies), devices: devices, userAgent: request.headers[.userAgent]
        ).speaking(
            localizer.wording(for: request, requested: state.request.uiLocales, preference: try await loginFlow.preferredLocale(of: state)))
        // The authorization code is issued in the submission's transaction: a sign-in and its code commit together.
        let submitted = try await flow.submit(flowID, state: state, action: submission.action, values: submission.values) { [responder, clock] user, state in
            try await responder.issueCode(for: state.request, userID: user.id, authTime: clock.now(), methods: state.methods)
        }
        switch submitted.outcome {
        case .next(let node):
            return JSONResponse.make(FlowResponse(status: .continue, flowID: flowID, node: node))
        case .retry(let node, _):
            return JSONResponse.make(FlowResponse(status: .error, flowID: flowID, node: node))
        case .gone:
            return expired(flow.wording)
        case .superseded:
            guard let now = try await flows.find(flowID, owner: .client(submission.clientID)) else { return expired(flow.wording) }
            let message = FlowMessage(level: .error, text: flow.say(LoginMessages.superseded), code: "already_answered")
            return JSONResponse.make(FlowResponse(status: .error, flowID: flowID, node: flow.node(for: now, messages: [message])))
        case .failed(let message):
            return JSONResponse.make(
                FlowResponse(status: .failure, failure: OAuthErrorResponse(error: "too_many_attempts", errorDescription: message)),
                status: .tooManyRequests)
        case .refused(let error, let description):
            return JSONResponse.make(
                FlowResponse(status: .failure, failure: OAuthErrorResponse(error: error, errorDescription: description)), status: .forbidden)
        case .authenticated(let user, let state):
            logger.info("User signed in through a native flow", metadata: ["user": "\(user.id)", "client": "\(state.request.clientID)"])
            guard let code = submitted.signedIn else { throw FlowEngineError.signInNotRecorded }
            // Like a browser's device cookie: this app now knows the account.
            let deviceToken = devices.naming(user.id) == nil ? deviceCookies.issue(userID: user.id) : nil
            return JSONResponse.make(
                FlowResponse(
                    status: .success,
                    authorization: FlowAuthorization(
                        code: code, state: state.request.state, issuer: issuer, redirectURI: state.request.redirectURI, deviceToken: deviceToken
                    )))
        }
    }

    /// Unknown, expired, finished, or started by another client: all look the same.
    private func expired(_ wording: Wording) -> Response {
        JSONResponse.make(
            FlowResponse(status: .failure, failure: OAuthErrorResponse(error: "flow_expired", errorDescription: wording(LoginMessages.expired).text)),
            status: .notFound)
    }
}
