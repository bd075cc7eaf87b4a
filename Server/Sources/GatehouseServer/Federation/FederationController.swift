import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The browser's way to and from other identity providers. `GET /flows/{flow}/idp/{provider}` sends it to the
/// provider; `/login/idp/callback` (the one redirect URI to register at every provider) receives the answer: a
/// hosted page's flow goes on here, in the browser that holds its cookie; an app's flow is handed back to the app's
/// redirect URI with the answer's parameters, and the app submits them (`idp_callback`) with its own client id.
struct FederationController: Sendable {
    let flows: FlowStore
    let loginFlow: LoginFlow
    /// Where a hosted page's flow goes on once the provider answered.
    let login: LoginController
    let cookies: CookieSettings
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    /// The language of the pages that stop before a flow is found.
    let localizer: Localizer

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/flows/:flow/idp/:provider") { request, context in
            try await start(
                request, flowID: context.parameters.get("flow") ?? "", providerID: context.parameters.get("provider") ?? "",
                source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        router.get("/login/idp/callback") { request, context in
            try await callback(
                request, parameters: FormParameters(encoded: request.uri.query ?? ""), source: ClientAddress(of: request, context: context, trusting: proxies))
        }
        // `response_mode=form_post` (Apple): a cross-site POST carries no SameSite=Lax cookie, so the answer is sent on
        // as a GET of the same URL, which the browser makes with the cookie.
        router.post("/login/idp/callback") { request, _ in
            guard let form = try? await FormParameters.body(of: request) else {
                return PageRenderer.error("page.invalid_request.title", "page.federation.unreadable", wording: localizer.wording(for: request))
            }
            let answer = Self.answerParameters.map { ($0, form[$0]) }
            return Redirect.to(Redirect.url("/login/idp/callback", adding: answer), afterPost: true)
        }
    }

    /// The parameters of a provider's answer that the flow reads.
    static let answerParameters = ["code", "state", "error", "error_description", "iss"]

    func start(_ request: Request, flowID: String, providerID: String, source: ClientAddress) async throws -> Response {
        guard let located = try await flows.locate(flowID), let binding = browserBinding(of: located, in: request) else {
            return expired(request)
        }
        let wording = try await login.wording(for: request, state: located.state)
        let flow = loginFlow.submitted(from: source).speaking(wording)
        let started: Result<String, FederationError>?
        do {
            started = try await flow.startUpstream(flowID, state: located.state, providerID: providerID)
        } catch is FlowStore.Superseded {
            return again(flowID, binding: binding, wording: wording)
        }
        switch started {
        case nil:
            return PageRenderer.error("page.not_offered.title", "page.not_offered.message", status: .notFound, wording: wording)
        case .success(let url):
            return Redirect.to(url)
        case .failure(let error):
            guard case .browser = binding else {
                // The app's browser session returns to the app, which submits the error and shows it on its node.
                return Redirect.to(
                    Redirect.url(
                        located.state.request.redirectURI, adding: [("error", "temporarily_unavailable"), ("error_description", error.message.english)]))
            }
            let message = FlowMessage(level: .error, text: wording(error.message), code: error.reason.rawValue)
            return page(flowID, binding: binding, node: flow.node(for: located.state, messages: [message]), status: .badGateway, wording: wording)
        }
    }

    func callback(_ request: Request, parameters: FormParameters, source: ClientAddress) async throws -> Response {
        guard let state = parameters["state"], let flowID = state.split(separator: ".", maxSplits: 1).first.map(String.init),
            let located = try await flows.locate(flowID)
        else { return expired(request) }
        let answer = Self.answerParameters.map { ($0, parameters[$0]) }
        switch browserBinding(of: located, in: request) {
        case nil:
            return expired(request)
        case .app:
            // The app's registered redirect URI: where its browser session ends, and the app takes over.
            return Redirect.to(Redirect.url(located.state.request.redirectURI, adding: answer))
        case .browser(let binding):
            var values: [String: FieldValue] = [:]
            for (key, value) in answer { if let value { values[key] = .text(value) } }
            return try await login.run(
                flowID, state: located.state, binding: binding, action: FlowActionID.identityProviderCallback.rawValue, values: values, request: request,
                source: source)
        }
    }

    /// Who continues a located flow: an app, or this browser (by its cookie); `nil` when the flow is another browser's.
    private enum Holder {
        case app
        case browser(String)
    }

    private func browserBinding(of located: (state: FlowStore.LoginState, browserBindingHash: String?), in request: Request) -> Holder? {
        guard let hash = located.browserBindingHash else { return .app }
        guard let binding = cookies.value(cookies.loginName, in: request), ConstantTime.equals(TokenDigest.hex(binding), hash) else {
            return nil
        }
        return .browser(binding)
    }

    private func again(_ flowID: String, binding: Holder, wording: Wording) -> Response {
        guard case .browser = binding else {
            return PageRenderer.error("page.try_again.title", LoginMessages.superseded, status: .conflict, wording: wording)
        }
        return Redirect.to("/login?flow=\(flowID)")
    }

    private func page(_ flowID: String, binding: Holder, node: FlowNode, status: HTTPResponse.Status, wording: Wording) -> Response {
        guard case .browser(let token) = binding else {
            return PageRenderer.error(title: node.name, message: node.messages.first?.text ?? "", status: status, wording: wording)
        }
        return FlowPage.render(node, flowID: flowID, csrfToken: token, action: "/login", status: status, wording: wording)
    }

    /// The flow is gone, or belongs to another browser: nothing says which language it spoke, so the browser's.
    private func expired(_ request: Request) -> Response {
        PageRenderer.error("page.sign_in_expired.title", LoginMessages.hostedExpired, wording: localizer.wording(for: request))
    }
}
