import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseServer

/// Drives one flow in-process the way an app does: reads the flow, submits values to the node it is at, and
/// reports where that led. The journey tests use it to pin down the flow engine's behaviour journey by journey.
struct FlowDriver {
    let server: IdentityServer
    let id: String
    static let owner = FlowStore.Owner.client("app")

    /// Starts a flow of `kind` for the app `app`, as `POST /flows/{kind}` does.
    static func start(_ server: IdentityServer, _ kind: FlowKind = .login, acrValues: [String]? = nil) async throws -> (FlowDriver, FlowNode) {
        var request = AuthorizationRequest(clientID: "app", redirectURI: "com.example.app:/cb", scopes: ["openid"], prompts: [])
        request.acrValues = acrValues
        let started = try await server.loginFlow.begin(request, kind: kind, clientName: "App", owner: owner)
        return (FlowDriver(server: server, id: started.id), started.node)
    }

    /// Submits `values` with `action` to the node the flow is at now.
    func submit(_ values: [String: FieldValue] = [:], action: String = "submit") async throws -> LoginFlow.Outcome {
        guard let state = try await server.flows.find(id, owner: Self.owner) else { return .gone }
        return try await server.loginFlow.advance(id, state: state, action: action, values: values)
    }

    /// The step the stored flow is at; `nil` once it finished or expired.
    func step() async throws -> FlowStep? {
        try await server.flows.find(id, owner: Self.owner)?.step
    }

    /// The code in the newest message the courier queued (every code leads its message).
    func latestCode() async throws -> String {
        let message = try #require(try await server.courier.queue.list(limit: 1).first)
        return String(message.body.prefix { !$0.isWhitespace })
    }
}

extension LoginFlow.Outcome {
    /// The id of the node shown next (or again); `nil` when the flow ended.
    var nodeID: String? {
        switch self {
        case .next(let node), .retry(let node, _): node.id
        case .authenticated, .gone, .failed, .superseded, .refused: nil
        }
    }

    /// The code of the first message on the node, such as `invalid_credentials`.
    var messageCode: String? {
        switch self {
        case .next(let node), .retry(let node, _): node.messages.first?.code
        case .authenticated, .gone, .failed, .superseded, .refused: nil
        }
    }

    /// Who signed in, with the `amr` values earned, when the flow finished.
    var signedIn: (user: User, methods: [String])? {
        if case .authenticated(let user, let state) = self { return (user, state.methods) }
        return nil
    }
}
