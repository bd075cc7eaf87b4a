import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Setting up a phone number or an email address as a second factor inside a flow: the factor, the way a phone gets
/// its codes, the number or address, the code that confirms it, and what changes for the account.
@Suite("Second factors set up inside the flow")
struct FactorEnrollmentTests {
    static let password = FlowJourneyTests.password

    static func policy(_ rule: SignOnPolicy.SecondFactorRule, factors: [SecondFactor], optional: Bool = false) -> (inout ServerConfiguration) -> Void {
        { configuration in
            var signOn = SignOnPolicy(secondFactor: rule)
            signOn.factors = factors
            signOn.optionalEnrollment = optional
            configuration.signOn = signOn
        }
    }

    /// The code in the newest message to `recipient`; a call spells it digit by digit.
    static func code(sentTo recipient: String, _ server: IdentityServer) async throws -> String {
        let message = try #require(try await server.courier.queue.list(recipient: recipient, limit: 1).first)
        let spoken = message.body.components(separatedBy: " is your").first ?? ""
        return message.channel == .voice ? spoken.filter(\.isNumber) : String(message.body.prefix { !$0.isWhitespace })
    }

    /// A six-digit code that is not `code`.
    static func wrong(_ code: String) -> FieldValue { code == "000000" ? "111111" : "000000" }

    @Test(
        "a phone by text message: method, a number that is not one refused, the number stored in E.164, a wrong code and a resend too soon refused; at sign-in a call, then a text instead after the resend delay",
        arguments: TestEngine.available)
    func phoneByText(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock, configure: Self.policy(.required, factors: [.totp, .sms, .voice])) { server in
            let user = try await FlowJourneyTests.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            guard case .next(let offer) = try await flow.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the choice of factor")
                return
            }
            #expect(offer.id == FlowStep.enrollOffer.rawValue && offer.category == FlowCategory.mfaEnrollmentRequired.rawValue)
            #expect(offer.fields.first?.options?.map(\.value) == ["totp", "phone"])
            #expect(offer.actions.map(\.id) == ["submit"], "no Not now when a second factor is required")
            guard case .next(let method) = try await flow.submit(["factor": "phone"]) else {
                Issue.record("expected the choice of method")
                return
            }
            #expect(method.id == FlowStep.enrollMethod.rawValue && method.fields.first?.options?.map(\.value) == ["sms", "voice"])
            #expect(try await flow.submit(["method": "sms"]).nodeID == FlowStep.enrollPhone.rawValue)
            // "Set up something else" goes back to the choice of factor, and the phone can be chosen again.
            #expect(try await flow.submit(action: "choose").nodeID == FlowStep.enrollOffer.rawValue)
            #expect(try await flow.submit(["factor": "phone"]).nodeID == FlowStep.enrollMethod.rawValue)
            #expect(try await flow.submit(["method": "sms"]).nodeID == FlowStep.enrollPhone.rawValue)
            for notANumber in ["415 555 0199", "+1 CALL ME", "+12"] {
                let refused = try await flow.submit(["phone_number": .text(notANumber)])
                #expect(refused.nodeID == FlowStep.enrollPhone.rawValue && refused.messageCode == "invalid_value", "\(notANumber)")
            }
            #expect(try await server.courier.queue.list().isEmpty, "nothing is sent to a number that is not one")
            guard case .next(let codeNode) = try await flow.submit(["phone_number": "+1 (415) 555-0199"]) else {
                Issue.record("expected the code node")
                return
            }
            #expect(codeNode.id == FlowStep.enrollPhoneCode.rawValue && codeNode.description.contains("+14155550199"))
            #expect(codeNode.actions.map(\.id) == ["submit", "resend", "other_method", "change"])
            let sent = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(sent.channel == .sms && sent.recipient == "+14155550199" && sent.template == "verification_code")
            #expect(try await flow.submit(action: "resend").messageCode == "resend_too_soon")
            let code = try await Self.code(sentTo: "+14155550199", server)
            #expect(try await flow.submit(["code": Self.wrong(code)]).messageCode == "invalid_code")
            #expect(try await server.authenticators.enrolledFactors(userID: user.id).isEmpty, "a wrong code enrolls nothing")
            let done = try await flow.submit(["code": .text(code)])
            #expect(done.signedIn?.methods == ["pwd", "sms", "mfa"])
            #expect(try await server.authenticators.enrolledFactors(userID: user.id) == [.sms, .voice])
            let stored = try #require(try await server.users.find(id: user.id))
            #expect(stored.phoneNumber == "+14155550199" && stored.phoneVerified)

            // The next sign-in asks for the phone, text first; a call, then a text instead once the resend delay passed.
            let (next, _) = try await FlowDriver.start(server)
            guard case .next(let choose) = try await next.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the choice of factor")
                return
            }
            #expect(choose.id == FlowStep.chooseFactor.rawValue && choose.fields.first?.options?.map(\.value) == ["sms", "voice"])
            #expect(try await next.submit(["factor": "voice"]).nodeID == FlowStep.voiceCode.rawValue)
            let call = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(call.channel == .voice && call.recipient == "+14155550199")
            let tooSoon = try await next.submit(action: "other_method")
            #expect(tooSoon.nodeID == FlowStep.voiceCode.rawValue && tooSoon.messageCode == "resend_too_soon")
            #expect(try await next.step() == .voiceCode)
            advance(31)
            #expect(try await next.submit(action: "other_method").nodeID == FlowStep.smsCode.rawValue)
            let text = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(text.channel == .sms && text.recipient == "+14155550199")
            #expect(try await next.submit(["code": .text(try await Self.code(sentTo: "+14155550199", server))]).signedIn?.methods == ["pwd", "sms", "mfa"])

            // A reset by email still asks for the phone, by text or call.
            advance(60)
            let (reset, _) = try await FlowDriver.start(server, .recovery)
            #expect(try await reset.submit(["username": "kim@example.com"]).nodeID == FlowStep.recoveryChoose.rawValue)
            #expect(try await reset.submit(["method": "email"]).nodeID == FlowStep.resetCode.rawValue)
            #expect(try await reset.submit(["code": .text(try await Self.code(sentTo: "kim@example.com", server))]).nodeID == FlowStep.chooseFactor.rawValue)
            let before = try await server.courier.queue.list(recipient: "+14155550199").count
            #expect(try await reset.submit(["factor": "sms"]).nodeID == FlowStep.smsCode.rawValue)
            #expect(try await server.courier.queue.list(recipient: "+14155550199").count == before + 1)
            #expect(
                try await reset.submit(["code": .text(try await Self.code(sentTo: "+14155550199", server))]).nodeID == FlowStep.recoveryPassword.rawValue)
        }
    }

    @Test(
        "a code to the verified number enrolls it under required; a new number by call, switched to text, replaces it and the old number and the email hear of it",
        arguments: TestEngine.available)
    func changingTheNumber(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock, configure: Self.policy(.required, factors: [.sms, .voice])) { server in
            let user = try await FlowJourneyTests.addUserWithPhone(server)
            let (first, _) = try await FlowDriver.start(server)
            #expect(try await first.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.chooseFactor.rawValue)
            #expect(try await first.submit(["factor": "voice"]).nodeID == FlowStep.voiceCode.rawValue)
            let proven = try await first.submit(["code": .text(try await Self.code(sentTo: "+14155550100", server))])
            #expect(proven.signedIn?.methods == ["pwd", "tel", "mfa"])
            #expect(try await server.authenticators.enrolledFactors(userID: user.id) == [.voice, .sms], "the way the code came comes first")

            // Changing two-step verification: the phone is the only factor this policy offers, so its method comes next.
            let (journey, _) = try await FlowDriver.start(server, .enrollment)
            guard case .next(let choose) = try await journey.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the choice of factor")
                return
            }
            #expect(choose.fields.first?.options?.map(\.value) == ["voice", "sms"], "an enrolled call comes before text")
            advance(60)
            #expect(try await journey.submit(["factor": "sms"]).nodeID == FlowStep.smsCode.rawValue)
            #expect(try await journey.submit(["code": .text(try await Self.code(sentTo: "+14155550100", server))]).nodeID == FlowStep.enrollMethod.rawValue)
            #expect(try await journey.submit(["method": "voice"]).nodeID == FlowStep.enrollPhone.rawValue)
            advance(60)
            guard case .next(let calling) = try await journey.submit(["phone_number": "+44 (0)20 7946 0958"]) else {
                Issue.record("expected the code node")
                return
            }
            #expect(calling.name == "Enter the code you hear" && calling.actions.map(\.id) == ["submit", "resend", "other_method", "change"])
            #expect(try await server.courier.queue.list(limit: 1).first?.channel == .voice)
            #expect(try await journey.submit(action: "other_method").messageCode == "resend_too_soon", "switching waits out the resend delay")
            advance(31)
            guard case .next(let texting) = try await journey.submit(action: "other_method") else {
                Issue.record("expected the code node again")
                return
            }
            #expect(texting.name == "Enter the code we sent you")
            let text = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(text.channel == .sms && text.recipient == "+442079460958")
            let done = try await journey.submit(["code": .text(try await Self.code(sentTo: "+442079460958", server))])
            #expect(done.signedIn != nil)
            #expect(try await server.users.find(id: user.id)?.phoneNumber == "+442079460958")
            #expect(try await server.authenticators.enrolledFactors(userID: user.id) == [.sms, .voice])
            let toOldNumber = try await server.courier.queue.list(recipient: "+14155550100", limit: 1).first
            #expect(toOldNumber?.template == "phone_changed" && toOldNumber?.channel == .sms)
            #expect(try await server.courier.queue.list(recipient: "kim@example.com", limit: 1).first?.template == "phone_changed")
        }
    }

    @Test(
        "email as a factor: a verified address is confirmed by a code; an unverified one is asked for, an address that is not one refused, and one another account has sends the person back",
        arguments: TestEngine.available)
    func email(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock, configure: Self.policy(.ifEnrolled, factors: [.totp, .email], optional: true)) {
            server in
            let kim = try await FlowJourneyTests.addUser(server)
            let (first, _) = try await FlowDriver.start(server)
            guard case .next(let offer) = try await first.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the offer")
                return
            }
            #expect(offer.fields.first?.options?.map(\.value) == ["totp", "email"] && offer.actions.map(\.id) == ["submit", "skip"])
            #expect(try await first.submit(["factor": "email"]).nodeID == FlowStep.enrollEmailCode.rawValue, "a verified address gets its code at once")
            let done = try await first.submit(["code": .text(try await Self.code(sentTo: "kim@example.com", server))])
            #expect(done.signedIn?.methods == ["pwd", "otp", "mfa"])
            #expect(try await server.authenticators.enrolledFactors(userID: kim.id) == [.email])

            let lee = try await server.users.create(
                username: "lee", email: "lee@example.com", name: nil, passwordHash: try await server.hasher.hash(Self.password), emailVerified: false)
            let (second, _) = try await FlowDriver.start(server)
            #expect(try await second.submit(["username": "lee", "password": .text(Self.password)]).nodeID == FlowStep.enrollOffer.rawValue)
            guard case .next(let asked) = try await second.submit(["factor": "email"]) else {
                Issue.record("expected the address node")
                return
            }
            #expect(asked.id == FlowStep.enrollEmail.rawValue && asked.fields.first?.defaultValue == "lee@example.com")
            #expect(try await second.submit(["email": "not an address"]).messageCode == "invalid_value")
            #expect(try await second.submit(["email": "KIM@example.com"]).nodeID == FlowStep.enrollEmailCode.rawValue)
            let taken = try await second.submit(["code": .text(try await Self.code(sentTo: "kim@example.com", server))])
            #expect(taken.nodeID == FlowStep.enrollEmail.rawValue && taken.messageCode == "invalid_value")
            #expect(try await server.users.find(id: lee.id)?.email == "lee@example.com", "nothing changed")
            advance(31)
            #expect(try await second.submit(["email": "lee.park@example.com"]).nodeID == FlowStep.enrollEmailCode.rawValue)
            let signedIn = try await second.submit(["code": .text(try await Self.code(sentTo: "lee.park@example.com", server))])
            #expect(signedIn.signedIn?.user.id == lee.id)
            let stored = try #require(try await server.users.find(id: lee.id))
            #expect(stored.email == "lee.park@example.com" && stored.emailVerified)
            #expect(try await server.authenticators.enrolledFactors(userID: lee.id) == [.email])
            #expect(try await server.courier.queue.list(recipient: "lee@example.com").allSatisfy { $0.template != "email_changed" })

            // A verified address asked to change on its code step: the new one is confirmed, the old one told.
            try await FlowJourneyTests.addUser(server, "max")
            let (third, _) = try await FlowDriver.start(server)
            #expect(try await third.submit(["username": "max", "password": .text(Self.password)]).nodeID == FlowStep.enrollOffer.rawValue)
            #expect(try await third.submit(["factor": "email"]).nodeID == FlowStep.enrollEmailCode.rawValue)
            #expect(try await third.submit(action: "change").nodeID == FlowStep.enrollEmail.rawValue)
            advance(31)
            #expect(try await third.submit(["email": "max.new@example.com"]).nodeID == FlowStep.enrollEmailCode.rawValue)
            #expect(try await third.submit(["code": .text(try await Self.code(sentTo: "max.new@example.com", server))]).signedIn != nil)
            #expect(try await server.users.find(username: "max")?.email == "max.new@example.com")
            let notice = try await server.courier.queue.list(recipient: "max@example.com", limit: 1).first
            #expect(notice?.template == "email_changed" && notice?.body.contains("Another email address") == true)

            // A username that is the email address keeps it.
            try await server.users.create(
                username: "ann@example.com", email: "ann@example.com", name: nil, passwordHash: try await server.hasher.hash(Self.password))
            let (fourth, _) = try await FlowDriver.start(server)
            _ = try await fourth.submit(["username": "ann@example.com", "password": .text(Self.password)])
            #expect(try await fourth.submit(["factor": "email"]).nodeID == FlowStep.enrollEmailCode.rawValue)
            #expect(try await fourth.submit(action: "change").nodeID == FlowStep.enrollEmail.rawValue)
            guard case .retry(let kept, _) = try await fourth.submit(["email": "ann.new@example.com"]) else {
                Issue.record("expected the address to be refused")
                return
            }
            #expect(kept.id == FlowStep.enrollEmail.rawValue && kept.messages.first?.text.contains("username is your email address") == true)
        }
    }

    @Test("wrong codes while setting up a phone end the sign-in at max_code_attempts, and nothing is enrolled", arguments: TestEngine.available)
    func wrongCodes(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy(.required, factors: [.sms])) { server in
            let user = try await FlowJourneyTests.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            #expect(try await flow.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.enrollPhone.rawValue)
            #expect(try await flow.submit(["phone_number": "+14155550199"]).nodeID == FlowStep.enrollPhoneCode.rawValue)
            let code = try await Self.code(sentTo: "+14155550199", server)
            for _ in 1..<5 { #expect(try await flow.submit(["code": Self.wrong(code)]).messageCode == "invalid_code") }
            guard case .failed = try await flow.submit(["code": Self.wrong(code)]) else {
                Issue.record("expected the flow to fail")
                return
            }
            #expect(try await flow.step() == nil)
            #expect(try await server.authenticators.enrolledFactors(userID: user.id).isEmpty)
            #expect(try await server.users.find(id: user.id)?.phoneNumber == nil)
        }
    }

    @Test("the enroll list: only factors that can be set up, each among factors, and at least one when a second factor is asked for")
    func enrollPolicy() throws {
        func problem(_ change: (inout SignOnPolicy) -> Void) -> String? {
            var policy = SignOnPolicy(secondFactor: .required)
            change(&policy)
            do {
                try policy.validate("sign_on")
                return nil
            } catch let error as ConfigurationError {
                return error.key
            } catch {
                return "\(error)"
            }
        }
        #expect(problem { $0.enroll = [.recoveryCode] } == "sign_on.enroll")
        #expect(problem { $0.enroll = [.sms] } == "sign_on.enroll", "sms is not among the factors")
        #expect(problem { $0.enroll = [] } == "sign_on.enroll")
        #expect(problem { $0.factors = [.recoveryCode] } == "sign_on.factors")
        #expect(
            problem {
                $0.factors = [.totp, .voice]; $0.enroll = [.voice]
            } == nil)
        var policy = SignOnPolicy(secondFactor: .required)
        policy.factors = [.totp, .email, .sms, .recoveryCode]
        #expect(policy.enrollable == [.totp, .email, .sms])
        #expect(EnrollableFactor.offered(by: policy) == [.totp, .phone, .email])
    }
}
