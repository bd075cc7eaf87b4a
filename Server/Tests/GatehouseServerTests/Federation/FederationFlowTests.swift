import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// Where the flow offers other identity providers, and what it does with an answer that does not belong to it.
@Suite("Identity providers in the flow")
struct FederationFlowTests {
    static func configure(_ configuration: inout ServerConfiguration) {
        var corp = IdentityProvider(id: "corp", name: "Corp", issuer: "https://sso.corp.example", clientID: "c", clientSecret: "s")
        corp.icon = "https://sso.corp.example/icon.svg"
        configuration.identityProviders = [corp, IdentityProvider(id: "github", name: "GitHub", kind: .oauth2, clientID: "g", clientSecret: "s")]
        configuration.registration.enabled = true
    }

    @Test("sign-in, identify-first and registration nodes offer each provider as an idp action with its URL and icon; later nodes do not")
    func offered() async throws {
        try await TestServer.withServer(configure: Self.configure) { server in
            let (flow, node) = try await FlowDriver.start(server)
            let actions = node.actions.filter { $0.kind == .idp }
            #expect(actions.map(\.id) == ["idp:corp", "idp:github"] && actions.map(\.label) == ["Sign in with Corp", "Sign in with GitHub"])
            #expect(actions[0].url == server.issuer + "/flows/\(flow.id)/idp/corp" && actions[0].icon == "https://sso.corp.example/icon.svg")
            let (_, registration) = try await FlowDriver.start(server, .registration)
            #expect(registration.actions.filter { $0.kind == .idp }.map(\.label) == ["Sign up with Corp", "Sign up with GitHub"])
            let (_, recovery) = try await FlowDriver.start(server, .recovery)
            #expect(!recovery.actions.contains { $0.kind == .idp })
            // An idp action is opened, never submitted.
            await #expect(throws: OAuthError.self) { _ = try await flow.submit(action: "idp:corp") }
        }
        try await TestServer.withServer(configure: {
            Self.configure(&$0)
            $0.loginSteps = .identifyFirst
        }) { server in
            let (flow, first) = try await FlowDriver.start(server)
            #expect(first.id == FlowStep.identify.rawValue && first.actions.contains { $0.id == "idp:corp" })
            let password = try await flow.submit(["username": .text("someone")])
            guard case .next(let node) = password else { Issue.record("expected the password node"); return }
            #expect(!node.actions.contains { $0.kind == .idp })
        }
    }

    @Test("an answer when no sign-in was sent to a provider, or with another state, is refused on the node and changes nothing")
    func strayAnswers() async throws {
        try await TestServer.withServer(configure: Self.configure) { server in
            let (flow, _) = try await FlowDriver.start(server)
            let stray = try await flow.submit(["code": .text("c"), "state": .text("\(flow.id).guess")], action: FlowActionID.identityProviderCallback.rawValue)
            #expect(stray.nodeID == FlowStep.credentials.rawValue && stray.messageCode == "idp_invalid_state")
            let passedOn = try await flow.submit(["error": .text("temporarily_unavailable")], action: FlowActionID.identityProviderCallback.rawValue)
            #expect(passedOn.nodeID == FlowStep.credentials.rawValue && passedOn.messageCode == "idp_denied")
            #expect(try await flow.step() == .credentials)
        }
    }
}
