import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The SwiftUI model against a live server, pressing every kind of button the nodes offer: links to other flows,
/// "Call me instead", "Use another method", "Call again", a wrong code shown under its field, "Unlock" with its code.
@Suite("SDK: FlowModel reaches every action a node offers")
struct SDKFlowModelTests {
    static let number = "+14155550100"

    @Test("links, other methods, resends, field errors and unlocking, all through FlowModel")
    func everyAction() async throws {
        let (clock, advance) = UnixClock.manual()
        // Five minutes behind, so that waiting out resend delays never issues tokens the app's clock sees as future.
        advance(-300)
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .ifEnrolled)
            signOn.factors = [.totp, .sms, .voice]
            configuration.clientSignOn["app"] = signOn
            configuration.throttling.maxFailures = 3
        }
        try await TestServer.withLiveServer(clock: clock, configure: policy) { server, issuer in
            try await Self.walk(server, issuer: issuer, advance: advance)
        }
    }

    @MainActor
    static func walk(_ server: IdentityServer, issuer: URL, advance: @Sendable (Int64) -> Void) async throws {
        let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
        let sam = try #require(try await server.users.find(username: "sam"))
        _ = try await server.authenticators.enrollPhone(userID: sam.id, number: Self.number, method: .sms)
        let model = FlowModel(client: client)

        await model.start()
        #expect(model.screen.step?.step == .credentials && !model.screen.isWorking)
        // A link to another flow, and its way back.
        let recover = try #require(model.screen.step?.links.first { $0.id == FlowActionID.recover.rawValue })
        await model.follow(recover)
        #expect(model.screen.step?.step == .recoveryIdentify)
        let back = try #require(model.screen.step?.links.first { $0.id == FlowActionID.cancel.rawValue })
        await model.follow(back)
        #expect(model.screen.step?.step == .credentials)

        // The main button, with a wrong password: the node again with the message above the form.
        model.screen.step?["username"] = "sam"
        model.screen.step?["password"] = "not the password"
        await model.submit()
        #expect(model.screen.step?.step == .credentials && model.screen.errorMessage == "The username or password is incorrect.")
        model.screen.step?["password"] = SDKLiveFlowTests.password
        await model.submit()
        #expect(model.screen.step?.step == .chooseFactor && model.screen.errorMessage == nil)
        model.screen.step?["factor"] = "sms"
        await model.submit()
        #expect(model.screen.step?.step == .smsCode && model.screen.step?.codeSource == .sms)

        // "Call me instead", after the resend delay.
        advance(31)
        await model.submit(try #require(model.screen.step?.submit(.otherMethod)))
        #expect(model.screen.step?.step == .voiceCode && model.screen.step?.codeSource == .voice)
        // "Use another method", then the call again by choosing it.
        await model.submit(try #require(model.screen.step?.submit(.choose)))
        #expect(model.screen.step?.step == .chooseFactor)
        model.screen.step?["factor"] = "voice"
        advance(61)
        await model.submit()
        #expect(model.screen.step?.step == .voiceCode)
        // "Call again" too soon: the node again, with the server's message.
        await model.submit(try #require(model.screen.step?.submit(.resend)))
        #expect(model.screen.step?.step == .voiceCode && model.screen.errorMessage != nil)

        // A wrong code: its message under the field, not above the form.
        let code = try await FactorEnrollmentTests.code(sentTo: Self.number, server)
        model.screen.step?["code"] = code == "000000" ? "111111" : "000000"
        await model.submit()
        #expect(model.screen.fieldErrors["code"] != nil || model.screen.errorMessage != nil)
        #expect(model.screen.step?.step == .voiceCode)
        model.screen.step?["code"] = code
        await model.submit()
        #expect(model.screen.step == nil && model.screen.failure == nil)
        #expect(await model.screen.user?.claims?.authenticationMethods == ["pwd", "tel", "mfa"])

        // "Unlock": wrong passwords block the name; the locked-out node offers a code by email, which unlocks it.
        await model.start()
        model.screen.step?["username"] = "sam"
        for _ in 0..<4 {
            model.screen.step?["password"] = "wrong"
            await model.submit()
        }
        let locked = try #require(model.screen.step)
        #expect(locked.status == .lockedOut, "\(locked.id) \(model.screen.errorMessage ?? "")")
        let unlock = try #require(locked.submit(.unlock) as SubmitCollector?)
        await model.submit(unlock)
        #expect(model.screen.step?.step == .unlockCode && model.screen.step?.codeSource == .email)
        model.screen.step?["code"] = try await FactorEnrollmentTests.code(sentTo: "sam@example.com", server)
        await model.submit()
        #expect(model.screen.step?.step == .credentials && model.screen.step?.messages.first?.code == "unlocked")
    }
}
