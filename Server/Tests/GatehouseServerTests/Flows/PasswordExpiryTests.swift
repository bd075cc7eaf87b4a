import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Password expiry")
struct PasswordExpiryTests {
    @Test("no step while young, a warning in the last days, a forced change once past the maximum age")
    func ages() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(
            clock: clock,
            configure: {
                $0.passwords.maxAgeDays = 30; $0.passwords.warningDays = 7
            }
        ) { server in
            let user = try await server.users.create(username: "ines", email: "ines@example.com", name: nil, passwordHash: "unused")
            let flow = server.loginFlow
            let request = AuthorizationRequest(clientID: "app", redirectURI: "com.example.app:/cb", scopes: ["openid"], prompts: [])
            let state = FlowStore.LoginState(request: request, step: .credentials)
            func step() async throws -> FlowStep? {
                flow.passwordStep(for: state, user: try #require(try await server.users.find(id: user.id)))
            }
            #expect(try await step() == nil)
            advance(23 * 86_400 - 1)
            #expect(try await step() == nil)
            advance(1)
            #expect(try await step() == FlowStep.passwordWarning)
            advance(7 * 86_400)
            #expect(try await step() == FlowStep.passwordExpired)
            try await server.users.changePassword(userID: user.id, to: "new")
            #expect(try await step() == nil, "a new password starts a new age")
        }
    }
}
