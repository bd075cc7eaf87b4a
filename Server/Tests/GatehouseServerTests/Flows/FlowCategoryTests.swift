import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The categories the flow engine's nodes carry, read from the engine itself (one node per step, and the sign-in
/// node locked out), against the SDK's `SignInStatus`: an app routes every node the server can send.
@Suite("Node categories and the SDK's statuses")
struct FlowCategoryTests {
    /// Every node the engine can show, each from a state that reaches it.
    static func everyNode(_ server: IdentityServer) throws -> [FlowNode] {
        let flow = server.loginFlow
        let request = AuthorizationRequest(clientID: "app", redirectURI: "com.example.app:/cb", scopes: ["openid"], prompts: [])
        var nodes: [FlowNode] = []
        for step in FlowStep.allCases {
            var state = FlowStore.LoginState(request: request, step: step, username: "kim", clientName: "App")
            state.account = FlowStore.ProvenAccount(userID: "u1", methods: ["pwd"])
            state.secondFactor.factors = [.totp, .email]
            if step == .appLogin {
                let sealed = try server.appLogins.box.seal(Data("ABCD-EFGH".utf8))
                state.journey = .signIn(appLogin: PendingAppLogin(sessionID: "s1", sealedAccessCode: sealed, returnStep: .credentials))
            }
            let node = flow.node(for: state)
            #expect(node.id == step.rawValue, "the state for \(step) shows \(node.id)")
            nodes.append(node)
        }
        var locked = FlowStore.LoginState(request: request, step: .credentials, username: "kim")
        locked.lockedOut = true
        nodes.append(flow.node(for: locked))
        return nodes
    }

    @Test("every category a node can carry is one the protocol names and the SDK routes")
    func everyCategoryRouted() async throws {
        try await TestServer.withServer { server in
            let sent = Set(try Self.everyNode(server).map(\.category))
            for category in sent {
                #expect(FlowCategory(rawValue: category) != nil, "\(category) is not a protocol category")
                #expect(SignInStatus(category: category) != .other(category), "the SDK has no status for \(category)")
            }
            // And the other way: the protocol names no category the server never sends.
            #expect(Set(FlowCategory.allCases.map(\.rawValue)) == sent)
        }
    }
}
