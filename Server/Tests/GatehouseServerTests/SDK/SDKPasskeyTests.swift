import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The SDK's multi-factor helper with passkeys against a live server on localhost, the passkeys made and used by the
/// tests' software authenticator through the ``PasskeyProvider`` seam, as an app's platform adapter would.
@Suite("SDK passkeys against a live server")
struct SDKPasskeyTests {
    actor StepLog {
        var steps: [MultifactorLogin.Step] = []
        func record(_ step: MultifactorLogin.Step) { steps.append(step) }
    }

    static func policy(_ configuration: inout ServerConfiguration) {
        var signOn = SignOnPolicy(secondFactor: .required)
        signOn.factors = [.passkey, .totp]
        signOn.passkeySignIn = true
        configuration.clientSignOn["app"] = signOn
    }

    @Test(
        "a passkey set up at the first sign-in, used as the second factor at the next, then signing in alone; without a provider it is not offered",
        arguments: TestEngine.available)
    func passkeys(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, hostName: "localhost", configure: { Self.policy(&$0) }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let authenticator = SoftwarePasskey(origin: "http://localhost:\(issuer.port ?? 0)")
            let log = StepLog()
            let login = MultifactorLogin(client: client, passkeys: authenticator) { step in
                await log.record(step)
                switch step {
                case .chooseEnrollment, .chooseFactor: return .choose(.passkey)
                default: return .done
                }
            }
            let enrolled = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await enrolled.claims?.authenticationMethods == ["pwd", "hwk", "mfa"])
            #expect(await log.steps == [.chooseEnrollment(factors: [.passkey, .totp], optional: false)])
            let sam = try #require(try await server.users.find(username: "sam"))
            #expect(try await server.passkeys.list(userID: sam.id).count == 1)

            let second = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await second.claims?.authenticationMethods == ["pwd", "hwk", "user", "mfa"])
            #expect(await log.steps.count == 1, "the only enrolled factor is asked for without a choice")

            let alone = try await login.loginWithPasskey()
            #expect(await alone.claims?.authenticationMethods == ["hwk", "user", "mfa"])
            #expect(await alone.claims?.subject == sam.id)

            // An app without a passkey provider is not offered passkeys, and cannot answer a passkey-only account.
            let withoutPasskeys = MultifactorLogin(client: client) { step in
                await log.record(step)
                return .done
            }
            await #expect(throws: GatehouseError.unsupportedStep("a passkey sign-in needs a PasskeyProvider")) {
                _ = try await withoutPasskeys.loginWithPasskey()
            }
            await #expect(throws: GatehouseError.unsupportedStep(FlowStep.passkey.rawValue)) {
                _ = try await withoutPasskeys.login(username: "sam", password: SDKLiveFlowTests.password)
            }
        }
    }

    @Test(
        "a passkey offered after registration: made only once the app agrees; declined, or without a provider, Not now signs in",
        arguments: TestEngine.available)
    func offeredAfterRegistration(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .ifEnrolled)
            signOn.factors = [.passkey, .totp]
            configuration.clientSignOn["app"] = signOn
            configuration.registration = RegistrationPolicy(enabled: true)
        }
        try await TestServer.withLiveServer(engine: engine, hostName: "localhost", configure: policy) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let authenticator = SoftwarePasskey(origin: "http://localhost:\(issuer.port ?? 0)")
            let log = StepLog()
            func answering(_ passkey: MultifactorLogin.Answer) -> MultifactorLogin.StepHandler {
                { step in
                    await log.record(step)
                    switch step {
                    case .verifyCode(.email, _):
                        let newest = try #require(try await server.courier.queue.list(limit: 1).first)
                        return .code(try await FactorEnrollmentTests.code(sentTo: newest.recipient, server))
                    case .createPasskey: return passkey
                    default: return .done
                    }
                }
            }
            func register(_ name: String, with login: MultifactorLogin) async throws -> (UserSession, User) {
                let profile = MultifactorLogin.Profile(givenName: "Pat", familyName: name, email: "\(name)@example.com")
                let session = try await login.register(username: name, password: SDKLiveFlowTests.password, profile: profile)
                return (session, try #require(try await server.users.find(username: name)))
            }

            // Without a provider: "Not now", never a throw.
            let (plain, pat) = try await register("pat", with: MultifactorLogin(client: client, stepHandler: answering(.allow)))
            #expect(await plain.claims?.authenticationMethods == ["pwd"])
            #expect(await log.steps == [.verifyCode(factor: .email, problem: nil)], "no passkey step is asked without a provider")
            #expect(try await server.passkeys.list(userID: pat.id).isEmpty)

            // The app declines: "Not now", and the provider is never asked to make one.
            let (declined, ray) = try await register("ray", with: MultifactorLogin(client: client, passkeys: authenticator, stepHandler: answering(.skip)))
            #expect(await declined.claims?.authenticationMethods == ["pwd"])
            #expect(await log.steps.suffix(1) == [.createPasskey(optional: true)])
            #expect(try await server.passkeys.list(userID: ray.id).isEmpty)

            // The app agrees: the provider makes it, and it counts for this sign-in.
            let (agreed, kai) = try await register("kai", with: MultifactorLogin(client: client, passkeys: authenticator, stepHandler: answering(.allow)))
            #expect(await agreed.claims?.authenticationMethods.contains("hwk") == true)
            #expect(await log.steps.suffix(1) == [.createPasskey(optional: true)])
            #expect(try await server.passkeys.list(userID: kai.id).count == 1)
        }
    }

    @Test("a refused passkey is tried again by the provider, and a provider that fails ends the sign-in with its error", arguments: TestEngine.available)
    func refusals(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, hostName: "localhost", configure: { Self.policy(&$0) }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let origin = "http://localhost:\(issuer.port ?? 0)"
            let authenticator = SoftwarePasskey(origin: origin)
            let login = MultifactorLogin(client: client, passkeys: authenticator) { _ in .choose(.passkey) }
            _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            // A page of another origin: refused; the SDK asks the provider again, still wrong, until the attempts end.
            await authenticator.set(origin: "https://evil.example")
            await #expect(throws: GatehouseError.throttled) { _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password) }
            await authenticator.set(origin: origin)
            let stranger = MultifactorLogin(client: client, passkeys: SoftwarePasskey(origin: origin)) { _ in .choose(.passkey) }
            await #expect(throws: SoftwarePasskey.Refusal.self) { _ = try await stranger.login(username: "sam", password: SDKLiveFlowTests.password) }
        }
    }
}
