import Foundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The native flow API: an app starts a login flow with the parameters of an authorization request,
/// submits node after node as JSON, and receives an authorization code to exchange with its PKCE verifier.
struct FlowController: Sendable {
    let server: IdentityServer

    func addRoutes(to router: Router<some RequestContext>) {
        router.post("/flows/login") { request, context in
            await OAuthError.answering(logger: server.logger) { try await start(request, context: context) }
        }
        router.post("/flows/:flow") { request, context in
            await OAuthError.answering(logger: server.logger) {
                try await submit(request, flowID: context.parameters.get("flow") ?? "", context: context)
            }
        }
    }

    func start(_ request: Request, context: some RequestContext) async throws -> Response {
        let body = try await decode(FlowStartRequest.self, from: request, context: context)
        guard let client = try await server.clients.find(id: body.clientID) else {
            throw OAuthError.invalidRequest("No client is registered as \(body.clientID).")
        }
        guard client.redirectURIs.contains(body.redirectURI) else {
            throw OAuthError.invalidRequest("The redirect URI is not registered for \(client.id).")
        }
        // The same rules as the browser's authorization request.
        let parameters = FormParameters([
            ("response_type", "code"), ("client_id", body.clientID), ("redirect_uri", body.redirectURI), ("scope", body.scope),
            ("state", body.state), ("nonce", body.nonce), ("code_challenge", body.codeChallenge),
            ("code_challenge_method", body.codeChallengeMethod), ("login_hint", body.loginHint),
        ])
        let validated: AuthorizationRequest
        switch AuthorizationController(server: server).validate(parameters, client: client, redirectURI: body.redirectURI) {
        case .success(let request): validated = request
        case .failure(let error): throw error
        }
        let flow = LoginFlow(server: server)
        let state = FlowStore.LoginState(request: validated, nodeID: flow.firstNodeID, username: validated.loginHint)
        let id = try await server.flows.create(state, lifetime: server.configuration.tokens.authorizationRequest)
        let node = flow.node(state.nodeID, clientName: client.name ?? client.id, username: state.username)
        return JSONResponse.make(FlowResponse(status: .continue, flowID: id, node: node))
    }

    func submit(_ request: Request, flowID: String, context: some RequestContext) async throws -> Response {
        let submission = try await decode(FlowSubmission.self, from: request, context: context)
        guard let state = try await server.flows.find(flowID, clientID: submission.clientID) else {
            return JSONResponse.make(FlowResponse(status: .failure, failure: OAuthErrorResponse(
                error: "flow_expired", errorDescription: "This sign-in has expired or does not exist. Start again."
            )), status: .notFound)
        }
        let flow = LoginFlow(server: server)
        let client = try await server.clients.find(id: state.request.clientID)
        let clientName = client?.name ?? state.request.clientID
        let current = flow.node(state.nodeID, clientName: clientName, username: state.username)
        guard current.actions.contains(where: { $0.id == submission.action }) else {
            throw OAuthError.invalidRequest("The node \(current.id) has no action \(submission.action).")
        }
        switch try await flow.submit(submission.values, at: state) {
        case .retry(let messages):
            let again = flow.node(state.nodeID, clientName: clientName, username: state.username ?? submission.values["username"], messages: messages)
            return JSONResponse.make(FlowResponse(status: .error, flowID: flowID, node: again))
        case .next(let nodeID, let username):
            try await server.flows.update(flowID, to: .init(request: state.request, nodeID: nodeID, username: username))
            return JSONResponse.make(FlowResponse(status: .continue, flowID: flowID, node: flow.node(nodeID, clientName: clientName, username: username)))
        case .authenticated(let user):
            guard try await server.flows.finish(flowID) else {
                return JSONResponse.make(FlowResponse(status: .failure, failure: OAuthErrorResponse(
                    error: "flow_expired", errorDescription: "This sign-in has already completed. Start again."
                )), status: .notFound)
            }
            server.logger.info("User signed in through a native flow", metadata: ["user": "\(user.id)", "client": "\(state.request.clientID)"])
            let code = try await AuthorizationResponder(server: server).issueCode(for: state.request, userID: user.id,
                                                                                  authTime: server.clock.now(), methods: ["pwd"])
            return JSONResponse.make(FlowResponse(status: .success, authorization: FlowAuthorization(
                code: code, state: state.request.state, issuer: server.issuer, redirectURI: state.request.redirectURI
            )))
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw HTTPError(.unsupportedMediaType, message: "Send the flow request as application/json.")
        }
        let buffer = try await FormParameters.collectBody(of: request)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch {
            throw OAuthError.invalidRequest("The request body is not a valid \(T.self): \(Self.explain(error)).")
        }
    }

    private static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        switch error {
        case .keyNotFound(let key, _): return "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? "not JSON" : "\(path) has the wrong type"
        @unknown default: return "not JSON"
        }
    }
}
