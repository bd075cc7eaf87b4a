import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The SDK's multi-factor helper setting up a phone number or an email address against a live server: the steps it
/// asks the app for, the server's refusals coming back as problems to correct, and the codes read from the outbox.
@Suite("SDK: second factors set up inside the flow")
struct SDKFactorEnrollmentTests {
    /// The steps asked, in order.
    actor StepLog {
        var steps: [MultifactorLogin.Step] = []
        func record(_ step: MultifactorLogin.Step) -> Int {
            steps.append(step)
            return steps.count
        }
    }

    @Test(
        "a phone set up at sign-in: factor, method, a number breaking the server's rules asked again, a call switched to a text, a wrong code asked again; later sign-ins by call",
        arguments: TestEngine.available)
    func phone(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        // A minute behind, so that waiting out a resend delay never issues tokens the app's own clock sees as future.
        advance(-60)
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.totp, .sms, .voice]
            configuration.clientSignOn["app"] = signOn
        }
        try await TestServer.withLiveServer(engine: engine, clock: clock, configure: policy) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let log = StepLog()
            let number = "+14155550199"
            let login = MultifactorLogin(client: client) { step in
                let count = await log.record(step)
                switch step {
                case .chooseEnrollment: return .choose(.phone)
                case .chooseMethod: return .choose(.voice)
                case .enterPhoneNumber(_, let problem): return .phoneNumber(problem == nil ? "+1 415 CALL NOW" : "+1 (415) 555-0199")
                case .chooseFactor: return .choose(.voice)
                case .verifyCode(.voice, nil) where count == 5:
                    advance(31)  // past the resend delay
                    return .useOtherMethod
                case .verifyCode(.sms, nil):
                    let right = try await FactorEnrollmentTests.code(sentTo: number, server)
                    return .code(right == "000000" ? "111111" : "000000")
                case .verifyCode: return .code(try await FactorEnrollmentTests.code(sentTo: number, server))
                default: return .done
                }
            }
            let enrolled = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await enrolled.claims?.authenticationMethods == ["pwd", "sms", "mfa"])
            let steps = await log.steps
            #expect(
                Array(steps.prefix(6)) == [
                    .chooseEnrollment(factors: [.totp, .phone], optional: false), .chooseMethod([.sms, .voice]),
                    .enterPhoneNumber(method: .voice, problem: nil), .enterPhoneNumber(method: .voice, problem: PhoneNumber.hint),
                    .verifyCode(factor: .voice, problem: nil), .verifyCode(factor: .sms, problem: nil),
                ], "\(steps)")
            guard steps.count == 7, case .verifyCode(.sms, .some) = steps[6] else {
                Issue.record("expected the wrong code to be asked again with its problem: \(steps)")
                return
            }
            let sam = try #require(try await server.users.find(username: "sam"))
            #expect(sam.phoneNumber == number && sam.phoneVerified)
            #expect(try await server.authenticators.enrolledFactors(userID: sam.id) == [.sms, .voice])

            let byCall = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await byCall.claims?.authenticationMethods == ["pwd", "tel", "mfa"])
            #expect(Array(await log.steps.dropFirst(7)) == [.chooseFactor([.sms, .voice]), .verifyCode(factor: .voice, problem: nil)])
        }
    }

    @Test(
        "email through the enrollment journey: a verified address confirmed by its code; an unverified one asked for, a taken one asked again",
        arguments: TestEngine.available)
    func email(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        // A minute behind, so that waiting out a resend delay never issues tokens the app's own clock sees as future.
        advance(-60)
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .ifEnrolled)
            signOn.factors = [.totp, .email]
            configuration.clientSignOn["app"] = signOn
        }
        try await TestServer.withLiveServer(engine: engine, clock: clock, configure: policy) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let log = StepLog()
            let flows = MultifactorLogin(client: client) { step in
                _ = await log.record(step)
                switch step {
                case .verifyCode(.email, _):
                    let newest = try #require(try await server.courier.queue.list(limit: 1).first)
                    return .code(try await FactorEnrollmentTests.code(sentTo: newest.recipient, server))
                case .chooseEnrollment: return .choose(.email)
                case .enterEmailAddress(_, nil): return .emailAddress("sam@example.com")
                case .enterEmailAddress:
                    advance(31)  // past the resend delay
                    return .emailAddress("lee.park@example.com")
                default: return .done
                }
            }
            // Sam's address is verified: proving it signs in for the journey, a second code to it enrolls it.
            let sam = try await flows.enroll(username: "sam", password: SDKLiveFlowTests.password, change: .email)
            #expect(await sam.claims?.authenticationMethods == ["pwd", "otp", "mfa"])
            #expect(await log.steps == [.verifyCode(factor: .email, problem: nil), .verifyCode(factor: .email, problem: nil)])
            let samID = try #require(try await server.users.find(username: "sam")).id
            #expect(try await server.authenticators.enrolledFactors(userID: samID) == [.email])

            // Lee's is not: nothing proves Lee yet, so the address is asked for; Sam's is refused once its code came back.
            try await server.users.create(
                username: "lee", email: "lee@example.com", name: nil, passwordHash: try await server.hasher.hash(SDKLiveFlowTests.password),
                emailVerified: false)
            let before = await log.steps.count
            let lee = try await flows.enroll(username: "lee", password: SDKLiveFlowTests.password, change: .email)
            #expect(await lee.claims?.authenticationMethods == ["pwd", "otp", "mfa"])
            let steps = Array(await log.steps.dropFirst(before))
            guard steps.count == 5, case .enterEmailAddress(nil, .some) = steps[3] else {
                Issue.record("expected the taken address to be asked again with its problem: \(steps)")
                return
            }
            #expect(
                steps.prefix(3) + steps.suffix(1) == [
                    .chooseEnrollment(factors: [.totp, .email], optional: false),
                    .enterEmailAddress(suggested: "lee@example.com", problem: nil), .verifyCode(factor: .email, problem: nil),
                    .verifyCode(factor: .email, problem: nil),
                ])
            let stored = try #require(try await server.users.find(username: "lee"))
            #expect(stored.email == "lee.park@example.com" && stored.emailVerified)
        }
    }
}
