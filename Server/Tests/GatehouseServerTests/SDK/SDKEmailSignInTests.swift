import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// Signing in with a code sent by email (`email_sign_in`), through the SDK against a live server: the helper's
/// `loginWithEmail`, the nodes as any app sees them, an address without an account (told nothing, sent nothing),
/// registration by email, and the sign-on policy's second factor after the code.
@Suite("SDK email sign-in against a live server")
struct SDKEmailSignInTests {
    static func policy(secondFactor: SignOnPolicy.SecondFactorRule = .off, registration: Bool = false) -> (inout ServerConfiguration) -> Void {
        { configuration in
            var signOn = SignOnPolicy(secondFactor: secondFactor)
            signOn.emailSignIn = true
            configuration.clientSignOn["app"] = signOn
            configuration.registration = RegistrationPolicy(enabled: registration)
        }
    }

    /// The messages queued for `address`.
    static func messages(to address: String, _ server: IdentityServer) async throws -> [String] {
        try await server.courier.queue.list(recipient: address, limit: 100).map(\.body)
    }

    @Test("a code to the account's address signs in without a password: one factor, amr otp and email", arguments: TestEngine.available)
    func signsIn(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: Self.policy()) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = SDKMultiFactorTests.Person()
            let login = MultifactorLogin(client: client) { step in
                if case .verifyCode(.email, nil) = step { return .code(try await SDKMultiFactorTests.latestCode(server)) }
                return await person.answer(step, now: 0)
            }
            let session = try await login.loginWithEmail("SAM@example.com")
            #expect(await session.claims?.preferredUsername == "sam")
            #expect(await session.claims?.authenticationMethods == ["otp", "email"])
            let steps = await person.steps
            #expect(steps.isEmpty, "the code was the only step: \(steps)")
            let body = try #require(try await Self.messages(to: "sam@example.com", server).first)
            #expect(body.contains("\(issuer.absoluteString)/login/email?flow="), "the message carries the link: \(body)")
        }
    }

    @Test("an address without an account gets the same nodes and no message; a wrong code is a problem to correct")
    func unknownAddress() async throws {
        try await TestServer.withLiveServer(configure: Self.policy()) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            func codeNode(for address: String) async throws -> ContinueNode {
                guard case .continue(let signIn) = await client.start(), let action = signIn.submit(.emailCode) else {
                    throw GatehouseError.unsupportedStep("no email sign-in offered")
                }
                guard case .continue(var form) = await signIn.next(action), form.step == .emailSignIn else {
                    throw GatehouseError.unsupportedStep("expected the address node")
                }
                form["email"] = address
                guard case .continue(let code) = await form.next() else { throw GatehouseError.unsupportedStep("expected the code node") }
                return code
            }
            let known = try await codeNode(for: "sam@example.com")
            let unknown = try await codeNode(for: "nobody@example.com")
            #expect(known.step == .emailSignInCode && unknown.step == .emailSignInCode && known.status == .verification)
            #expect(known.description.replacingOccurrences(of: "sam@", with: "nobody@") == unknown.description)
            #expect(known.collectors.compactMap(\.field?.key) == unknown.collectors.compactMap(\.field?.key))
            #expect(try await Self.messages(to: "nobody@example.com", server).isEmpty)
            var guess = unknown
            guess["code"] = "000000"
            guard case .error(let error) = await guess.next() else { Issue.record("a wrong code is an error node"); return }
            #expect(error.retry.step == .emailSignInCode && error.messages.first?.code == "invalid_code")
        }
    }

    @Test("with registration on, an address without an account becomes one, verified and without a password", arguments: TestEngine.available)
    func registers(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: Self.policy(registration: true)) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let login = MultifactorLogin(client: client) { step in
                guard case .verifyCode(.email, _) = step else { return .done }
                return .code(try await SDKMultiFactorTests.latestCode(server))
            }
            let session = try await login.loginWithEmail("newbie@example.com")
            #expect(await session.claims?.preferredUsername == "newbie")
            let user = try #require(try await server.users.find(usernameOrEmail: "newbie@example.com"))
            #expect(user.emailVerified && !user.hasPassword && user.username == "newbie")
            let events = try await server.audit.recent(of: user.id, limit: 5).map(\.type)
            #expect(events.contains(.accountCreated) && events.contains(.signInSucceeded))
            // The next time the same address signs in to that account; no second account.
            let again = try await login.loginWithEmail("newbie@example.com")
            #expect(await again.claims?.subject == user.id)
        }
    }

    @Test("the sign-on policy's second factor still follows the code, never a code to the same address")
    func secondFactorFollows() async throws {
        try await TestServer.withLiveServer(configure: Self.policy(secondFactor: .required)) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = SDKMultiFactorTests.Person()
            let clock = server.clock
            let login = MultifactorLogin(client: client) { step in
                if case .verifyCode(.email, _) = step { return .code(try await SDKMultiFactorTests.latestCode(server)) }
                return await person.answer(step, now: clock.now())
            }
            let session = try await login.loginWithEmail("sam@example.com")
            #expect(await session.claims?.authenticationMethods == ["otp", "email", "mfa"])
            let steps = await person.steps
            guard case .enrollTOTP = steps.first else { Issue.record("expected TOTP enrollment after the code, got \(steps)"); return }
        }
    }

    @Test("a client whose policy does not offer it says so")
    func notOffered() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let login = MultifactorLogin(client: client) { _ in .done }
            await #expect(throws: GatehouseError.unsupportedStep("email sign-in is not offered by this client's sign-on policy")) {
                try await login.loginWithEmail("sam@example.com")
            }
        }
    }
}
