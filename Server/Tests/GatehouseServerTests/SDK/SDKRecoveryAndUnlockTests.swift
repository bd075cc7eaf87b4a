import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The multi-factor helper resetting a password with a code read out in a call, and unlocking an account that wrong
/// passwords blocked, against a live server.
@Suite("SDK: a reset code by call, and unlocking")
struct SDKRecoveryAndUnlockTests {
    actor StepLog {
        var steps: [MultifactorLogin.Step] = []
        func record(_ step: MultifactorLogin.Step) -> Int {
            steps.append(step)
            return steps.count
        }
    }

    static let number = "+14155550100"
    static let newPassword = "a reset passphrase read out loud"

    @Test("where the policy takes calls, a reset code may come by call and its node says so; elsewhere only email and text", arguments: TestEngine.available)
    func resetByCall(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .off)
            signOn.factors = [.totp, .sms, .voice]
            configuration.clientSignOn["app"] = signOn
        }
        try await TestServer.withLiveServer(engine: engine, configure: policy) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let sam = try #require(try await server.users.find(username: "sam"))
            _ = try await server.authenticators.enrollPhone(userID: sam.id, number: Self.number, method: .sms)
            try await server.authenticators.removeAll(userID: sam.id)  // a verified number, not a second factor
            let log = StepLog()
            let login = MultifactorLogin(client: client) { step in
                _ = await log.record(step)
                switch step {
                case .chooseMethod(let methods): return .choose(methods.contains(.voice) ? .voice : .sms)
                case .verifyCode: return .code(try await FactorEnrollmentTests.code(sentTo: Self.number, server))
                case .newPassword(.reset, _): return .password(Self.newPassword)
                default: return .done
                }
            }
            let user = try await login.resetPassword(username: "sam")
            #expect(await user.claims?.preferredUsername == "sam")
            #expect(
                await log.steps == [
                    .chooseMethod([.email, .sms, .voice]), .verifyCode(factor: .voice, problem: nil), .newPassword(reason: .reset, problem: nil),
                ])
            let call = try #require(try await server.courier.queue.list(recipient: Self.number, limit: 1).first)
            #expect(call.channel == .voice)
            _ = try await login.login(username: "sam", password: Self.newPassword)

            // Another client, whose policy takes no calls: email and text only, and a call asked for anyway is refused.
            try await server.clients.create(id: "web", secret: nil, redirectURIs: ["com.example.web:/cb"], scopes: ClientRegistrationRules.defaultScopes)
            let web = GatehouseClient(
                configuration: GatehouseConfiguration(issuer: issuer, clientID: "web", redirectURI: "com.example.web:/cb", tokenStorage: MemoryTokenStorage()))
            let other = MultifactorLogin(client: web) { step in
                _ = await log.record(step)
                if case .chooseMethod = step { return .choose(.voice) }
                return .done
            }
            await #expect(throws: GatehouseError.self) { _ = try await other.resetPassword(username: "sam") }
            #expect(await log.steps.last == .chooseMethod([.email, .sms]))
        }
    }

    @Test(
        "unlock: a code by email lifts the block wrong passwords put on the name; a wrong code is asked again; an unknown name gets the same steps",
        arguments: TestEngine.available)
    func unlock(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: { $0.throttling.maxFailures = 3 }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            for _ in 0..<3 { _ = try await server.authenticator.authenticate(username: "sam", password: "wrong") }
            let log = StepLog()
            let login = MultifactorLogin(client: client) { step in
                let count = await log.record(step)
                guard case .verifyCode(.email, _) = step else { return .done }
                let code = try await FactorEnrollmentTests.code(sentTo: "sam@example.com", server)
                return .code(count == 1 ? (code == "000000" ? "111111" : "000000") : code)
            }
            await #expect(throws: GatehouseError.throttled) { _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password) }
            try await login.unlock(username: "sam")
            let steps = await log.steps
            guard steps.count == 2, case .verifyCode(.email, nil) = steps[0], case .verifyCode(.email, .some) = steps[1] else {
                Issue.record("expected a code, then the wrong one asked again: \(steps)")
                return
            }
            let user = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await user.claims?.preferredUsername == "sam")

            // A name without an account: the same code step, and nothing sent anywhere.
            let sent = try await server.courier.queue.list(limit: 100).count
            let stranger = MultifactorLogin(client: client) { step in
                _ = await log.record(step)
                return .code("123456")
            }
            await #expect(throws: GatehouseError.self) { try await stranger.unlock(username: "nobody") }
            #expect(try await server.courier.queue.list(limit: 100).count == sent)
            #expect(await log.steps.dropFirst(2).first == .verifyCode(factor: .email, problem: nil))
        }
    }
}
