import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseServer

/// Two submissions of one step at once — a double tap, two tabs, a retried request — must not both move the flow on.
@Suite("One submission per step")
struct FlowConcurrencyTests {
    static let password = "a fine password"

    /// A user without a second factor, under a policy that makes the password continue to TOTP enrollment.
    static func prepare(_ server: IdentityServer) async throws -> (id: String, state: FlowStore.LoginState) {
        let hash = try await server.hasher.hash(password)
        try await server.users.create(username: "rae", email: "rae@example.com", name: nil, passwordHash: hash)
        let request = AuthorizationRequest(clientID: "app", redirectURI: "com.example.app:/cb", scopes: ["openid"], prompts: [])
        let started = try await server.loginFlow.begin(request, clientName: "App", owner: .client("app"))
        return (started.id, try #require(try await server.flows.find(started.id, owner: .client("app"))))
    }

    @Test("of four copies of the right password sent at once, exactly one continues; the others change nothing", arguments: TestEngine.available)
    func samePasswordFourTimes(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.signOn = SignOnPolicy(secondFactor: .required) }) { server in
            let (id, state) = try await Self.prepare(server)
            // Every copy read the flow before any of them wrote it, as concurrent requests do. (Four stay inside the
            // account's five password checks at once: more would also meet the attempt limiter, whose refusal is an
            // answer of its own.)
            let outcomes = try await withThrowingTaskGroup(of: LoginFlow.Outcome.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await server.loginFlow.advance(
                            id, state: state, action: "submit",
                            values: ["username": .text("rae"), "password": .text(Self.password)])
                    }
                }
                return try await group.reduce(into: [LoginFlow.Outcome]()) { $0.append($1) }
            }
            let continued = outcomes.compactMap { outcome -> FlowNode? in if case .next(let node) = outcome { node } else { nil } }
            let superseded = outcomes.filter { if case .superseded = $0 { true } else { false } }
            #expect(continued.count == 1 && superseded.count == 3, "\(outcomes)")
            // The winner's enrollment is the one stored: the QR code it showed is the secret a code will be checked against.
            let stored = try #require(try await server.flows.find(id, owner: .client("app")))
            #expect(stored.step == .enrollTOTP && stored.version == state.version + 1)
            let shown = try #require(continued.first?.fields.first { $0.key == "otpauth" }?.defaultValue)
            #expect(server.loginFlow.node(for: stored).fields.first { $0.key == "otpauth" }?.defaultValue == shown)
        }
    }

    @Test("a submission that read the flow before another one moved it on is superseded, also when that one finished it", arguments: TestEngine.available)
    func staleSubmissions(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let (id, stale) = try await Self.prepare(server)
            let flow = server.loginFlow
            // The password alone signs in under the default policy: the first submission finishes the flow…
            guard
                case .authenticated = try await flow.advance(
                    id, state: stale, action: "submit",
                    values: ["username": .text("rae"), "password": .text(Self.password)])
            else { Issue.record("expected a sign-in"); return }
            // …and the same submission read at the same time finds nothing left to finish.
            guard
                case .superseded = try await flow.advance(
                    id, state: stale, action: "submit",
                    values: ["username": .text("rae"), "password": .text(Self.password)])
            else { Issue.record("expected the second copy to be superseded"); return }
            #expect(try await server.flows.find(id, owner: .client("app")) == nil)
        }
    }
}
