import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Each journey of the flow engine, driven in-process from its first node to its end: the behaviour the engine's
/// restructuring (typed steps, journeys with their own state, one transaction per submission) must keep.
@Suite("Flow journeys")
struct FlowJourneyTests {
    static let password = "a fine password"
    static let newPassword = "another fine passphrase"

    @discardableResult
    static func addUser(_ server: IdentityServer, _ name: String = "kim") async throws -> User {
        try await server.users.create(username: name, email: "\(name)@example.com", name: nil, passwordHash: try await server.hasher.hash(password))
    }

    /// `kim` with a verified email and the verified number +14155550100.
    @discardableResult
    static func addUserWithPhone(_ server: IdentityServer) async throws -> User {
        let profile = UserProfile(email: "kim@example.com", givenName: "Kim", familyName: "Lee", phoneNumber: "+14155550100")
        return try await server.users.create(
            username: "kim", profile: profile, passwordHash: try await server.hasher.hash(password), emailVerified: true, phoneVerified: true)
    }

    @Test("single node: a wrong password is shown again with a message, the right one signs in with pwd", arguments: TestEngine.available)
    func singleNode(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let user = try await Self.addUser(server)
            let (flow, first) = try await FlowDriver.start(server)
            #expect(first.id == FlowStep.credentials.rawValue)
            let wrong = try await flow.submit(["username": "kim", "password": "not it"])
            #expect(wrong.nodeID == FlowStep.credentials.rawValue && wrong.messageCode == "invalid_credentials")
            let done = try await flow.submit(["username": "kim", "password": .text(Self.password)])
            #expect(done.signedIn?.user.id == user.id && done.signedIn?.methods == ["pwd"])
            #expect(try await flow.step() == nil, "a finished flow cannot be submitted again")
        }
    }

    @Test("identify first: any name goes on to the password node; the right password signs in", arguments: TestEngine.available)
    func identifyFirst(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.loginSteps = .identifyFirst }) { server in
            try await Self.addUser(server)
            let (nobody, _) = try await FlowDriver.start(server)
            #expect(try await nobody.submit(["username": "nobody"]).nodeID == FlowStep.password.rawValue)
            #expect(try await nobody.submit(["password": .text(Self.password)]).messageCode == "invalid_credentials")
            let (flow, first) = try await FlowDriver.start(server)
            #expect(first.id == FlowStep.identify.rawValue)
            #expect(try await flow.submit(["username": "kim"]).nodeID == FlowStep.password.rawValue)
            #expect(try await flow.submit(["password": .text(Self.password)]).signedIn != nil)
        }
    }

    @Test("TOTP and recovery codes: a wrong code is retried, a right one signs in with otp or a recovery code, and mfa", arguments: TestEngine.available)
    func totpAndRecoveryCodes(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.signOn = SignOnPolicy(secondFactor: .ifEnrolled) }) { server in
            let user = try await Self.addUser(server)
            let generator = AuthenticatorStore.newTOTP()
            try await server.authenticators.addTOTP(userID: user.id, generator, usedStep: 0)
            let recoveryCodes = try await server.authenticators.replaceRecoveryCodes(userID: user.id, endingSessions: false)

            let (flow, _) = try await FlowDriver.start(server)
            #expect(try await flow.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.chooseFactor.rawValue)
            #expect(try await flow.submit(["factor": "totp"]).nodeID == FlowStep.totp.rawValue)
            let now = server.clock.now()
            let wrong = generator.code(at: now + 600)
            #expect(try await flow.submit(["code": .text(wrong)]).messageCode == "invalid_code")
            let done = try await flow.submit(["code": .text(generator.code(at: now))])
            #expect(done.signedIn?.methods == ["pwd", "otp", "mfa"])

            let (second, _) = try await FlowDriver.start(server)
            _ = try await second.submit(["username": "kim", "password": .text(Self.password)])
            #expect(try await second.submit(["factor": "recovery_code"]).nodeID == FlowStep.recoveryCode.rawValue)
            let recovered = try await second.submit(["code": .text(recoveryCodes[0])])
            #expect(recovered.signedIn?.methods.contains("mfa") == true)
        }
    }

    @Test("a code by email as second factor: sent when chosen, and the right one signs in", arguments: TestEngine.available)
    func emailCode(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.email]
            configuration.signOn = signOn
        }
        try await TestServer.withServer(engine: engine, configure: policy) { server in
            try await Self.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            #expect(try await flow.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.emailCode.rawValue)
            let done = try await flow.submit(["code": .text(try await flow.latestCode())])
            #expect(done.signedIn?.methods.contains("mfa") == true)
        }
    }

    @Test("registration: profile and password, the emailed code, then signed in as the new account", arguments: TestEngine.available)
    func registration(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.registration = RegistrationPolicy(enabled: true) }) { server in
            let (flow, first) = try await FlowDriver.start(server, .registration)
            #expect(first.id == FlowStep.register.rawValue)
            let profile: [String: FieldValue] = [
                "given_name": "Lee", "family_name": "Park", "email": "lee@example.com", "username": "lee",
                "new_password": .text(Self.newPassword),
            ]
            #expect(try await flow.submit(profile).nodeID == FlowStep.verifyEmail.rawValue)
            #expect(try await server.users.find(username: "lee") == nil, "no account before the address is confirmed")
            let done = try await flow.submit(["code": .text(try await flow.latestCode())])
            #expect(done.signedIn?.user.username == "lee" && done.signedIn?.user.emailVerified == true)
        }
    }

    @Test("recovery: the identifier as typed, a code by email, a new password, then signed in with it", arguments: TestEngine.available)
    func recovery(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let user = try await Self.addUser(server)
            let (flow, first) = try await FlowDriver.start(server, .recovery)
            #expect(first.id == FlowStep.recoveryIdentify.rawValue)
            #expect(try await flow.submit(["username": "kim@example.com"]).nodeID == FlowStep.recoveryChoose.rawValue)
            #expect(try await flow.submit(["method": "email"]).nodeID == FlowStep.resetCode.rawValue)
            #expect(try await flow.submit(["code": .text(try await flow.latestCode())]).nodeID == FlowStep.recoveryPassword.rawValue)
            let done = try await flow.submit(["new_password": .text(Self.newPassword)])
            #expect(done.signedIn?.user.id == user.id)
            let (again, _) = try await FlowDriver.start(server)
            #expect(try await again.submit(["username": "kim", "password": .text(Self.newPassword)]).signedIn != nil)
        }
    }

    @Test("lockout and unlock: wrong passwords pause the name, an emailed code lifts it, and the password signs in", arguments: TestEngine.available)
    func lockoutAndUnlock(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.throttling.maxFailures = 3 }) { server in
            try await Self.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            for _ in 0..<3 { _ = try await flow.submit(["username": "kim", "password": "wrong"]) }
            let throttled = try await flow.submit(["username": "kim", "password": .text(Self.password)])
            #expect(throttled.messageCode == "throttled")
            #expect(try await flow.submit(action: "unlock").nodeID == FlowStep.unlockCode.rawValue)
            let unlocked = try await flow.submit(["code": .text(try await flow.latestCode())])
            #expect(unlocked.nodeID == FlowStep.credentials.rawValue && unlocked.messageCode == "unlocked")
            #expect(try await flow.submit(["username": "kim", "password": .text(Self.password)]).signedIn != nil)
        }
    }

    @Test("expiry: a flow submitted after its lifetime is gone", arguments: TestEngine.available)
    func expiry(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            try await Self.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            advance(server.configuration.tokens.authorizationRequest + 1)
            guard case .gone = try await flow.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the flow to be gone")
                return
            }
        }
    }

    @Test("a code by SMS as second factor, after choosing it over email; a resend within the backoff is refused", arguments: TestEngine.available)
    func smsCode(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.email, .sms]
            configuration.signOn = signOn
        }
        try await TestServer.withServer(engine: engine, configure: policy) { server in
            try await Self.addUserWithPhone(server)
            let (flow, _) = try await FlowDriver.start(server)
            #expect(try await flow.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.chooseFactor.rawValue)
            #expect(try await flow.submit(["factor": "sms"]).nodeID == FlowStep.smsCode.rawValue)
            #expect(try await flow.submit(action: "resend").messageCode == "resend_too_soon")
            let message = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(message.channel == .sms && message.recipient == "+14155550100")
            let done = try await flow.submit(["code": .text(try await flow.latestCode())])
            #expect(done.signedIn?.methods == ["pwd", "sms", "mfa"])
        }
    }

    @Test(
        "TOTP enrolled at the first sign-in when policy requires it: the code confirms it, the recovery codes are shown once", arguments: TestEngine.available)
    func enrollmentAtSignIn(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.signOn = SignOnPolicy(secondFactor: .required) }) { server in
            let user = try await Self.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            guard case .next(let setup) = try await flow.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the enrollment node")
                return
            }
            #expect(setup.id == FlowStep.enrollTOTP.rawValue)
            let uri = try #require(setup.fields.first { $0.key == "otpauth" }?.defaultValue)
            let secret = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
            let generator = OneTimePassword(secret: try #require(Base32.decode(secret)))
            #expect(try await flow.submit(["code": .text(generator.code(at: server.clock.now() + 600))]).messageCode == "invalid_code")
            guard case .next(let codes) = try await flow.submit(["code": .text(generator.code(at: server.clock.now()))]) else {
                Issue.record("expected the recovery codes")
                return
            }
            #expect(codes.id == FlowStep.recoveryCodes.rawValue && codes.fields.first?.label.split(separator: " ").count == 10)
            let done = try await flow.submit()
            #expect(done.signedIn?.methods == ["pwd", "otp", "mfa"])
            #expect(try await server.authenticators.enrolledFactors(userID: user.id).contains(.totp))
        }
    }

    @Test("enrollment journey: password and the current TOTP, then a new authenticator that replaces the old one", arguments: TestEngine.available)
    func enrollmentJourney(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let user = try await Self.addUser(server)
            let old = AuthenticatorStore.newTOTP()
            try await server.authenticators.addTOTP(userID: user.id, old, usedStep: 0)
            let (flow, first) = try await FlowDriver.start(server, .enrollment)
            #expect(first.description.contains("two-step verification"))
            // Asked for the second factor although the default policy does not ask at sign-in.
            #expect(try await flow.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.totp.rawValue)
            #expect(try await flow.submit(["code": .text(old.code(at: server.clock.now()))]).nodeID == FlowStep.enrollChoose.rawValue)
            guard case .next(let setup) = try await flow.submit(["setup": "totp"]) else {
                Issue.record("expected the enrollment node")
                return
            }
            let uri = try #require(setup.fields.first { $0.key == "otpauth" }?.defaultValue)
            let secret = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "secret" }?.value)
            let new = OneTimePassword(secret: try #require(Base32.decode(secret)))
            #expect(try await flow.submit(["code": .text(new.code(at: server.clock.now()))]).nodeID == FlowStep.recoveryCodes.rawValue)
            #expect(try await flow.submit().signedIn != nil)
            // The old authenticator's codes no longer count; the new one's do.
            advance(60)
            let later = server.clock.now()
            #expect(try await server.authenticators.verifyTOTP(userID: user.id, code: old.code(at: later)) == .rejected)
            #expect(try await server.authenticators.verifyTOTP(userID: user.id, code: new.code(at: later)) == .accepted)
            let notice = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(notice.template == MessageTemplate.authenticatorChanged.rawValue)
        }
    }

    @Test(
        "app login: the QR node waits, goes back to the password and shows a new code, and signs in with swk and pin once approved",
        arguments: TestEngine.available)
    func appLogin(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy()
            signOn.appLogin = true
            configuration.signOn = signOn
        }
        try await TestServer.withServer(engine: engine, configure: policy) { server in
            let user = try await Self.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            #expect(try await flow.submit(action: "app").nodeID == FlowStep.appLogin.rawValue)
            #expect(try await flow.submit(action: "check").messageCode == "app_login_pending")
            #expect(try await flow.submit(action: "password").nodeID == FlowStep.credentials.rawValue)
            guard case .next(let shown) = try await flow.submit(action: "app") else {
                Issue.record("expected the QR node")
                return
            }
            // The authenticator app's side, as the /authenticator API does it once the PIN checked out.
            let accessCode = try #require(shown.fields.first { $0.key == "access_code" }?.defaultValue)
            let claimed = try #require(try await server.appLogins.claim(accessCode: accessCode, identityID: "phone", userID: user.id))
            let challenge = try #require(try await server.appLogins.newChallenge(claimed.id, identityID: "phone"))
            #expect(try await server.appLogins.approve(claimed.id, identityID: "phone", challenge: challenge, grace: 60))
            let done = try await flow.submit(action: "check")
            #expect(done.signedIn?.user.id == user.id && done.signedIn?.methods == ["swk", "pin"])
        }
    }

    @Test("a flow stored in a form this engine does not read has expired for it, rather than failing", arguments: TestEngine.available)
    func unreadableStoredFlow(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let (flow, _) = try await FlowDriver.start(server)
            try await server.database.transaction { sql in
                try await sql.raw("UPDATE flows SET state = \(bind: #"{"nodeID": "login.credentials", "journey": "login"}"#)").run()
            }
            #expect(try await server.flows.find(flow.id, owner: FlowDriver.owner) == nil)
        }
    }

    @Test(
        "optional enrollment: offered after the password, Not now signs in and is remembered, the offer returns after the reminder period",
        arguments: TestEngine.available)
    func optionalEnrollment(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .ifEnrolled)
            signOn.optionalEnrollment = true
            signOn.enrollmentReminderDays = 7
            configuration.signOn = signOn
        }
        try await TestServer.withServer(engine: engine, clock: clock, configure: policy) { server in
            let user = try await Self.addUser(server)
            let (first, _) = try await FlowDriver.start(server)
            guard case .next(let offer) = try await first.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the offer")
                return
            }
            #expect(offer.id == FlowStep.enrollOffer.rawValue && offer.category == FlowCategory.mfaEnrollmentRequired.rawValue)
            #expect(offer.actions.map(\.id) == ["submit", "skip"])
            #expect(try await first.submit(action: "skip").signedIn?.methods == ["pwd"])
            #expect(try await server.users.find(id: user.id)?.enrollmentDeclinedAt == server.clock.now())

            // Not asked again within the reminder period…
            let (second, _) = try await FlowDriver.start(server)
            #expect(try await second.submit(["username": "kim", "password": .text(Self.password)]).signedIn != nil)
            // …and asked again after it; this time the person sets up an app.
            advance(7 * 86_400)
            let (third, _) = try await FlowDriver.start(server)
            #expect(try await third.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.enrollOffer.rawValue)
            #expect(try await third.submit(["factor": "totp"]).nodeID == FlowStep.enrollTOTP.rawValue)
        }
    }

    @Test(
        "registration: a name taken between the form and the code sends the second registration back to the form, which still works",
        arguments: TestEngine.available)
    func registrationRace(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.registration = RegistrationPolicy(enabled: true) }) { server in
            func profile(_ email: String) -> [String: FieldValue] {
                ["given_name": "Lee", "family_name": "Park", "email": .text(email), "username": "lee", "new_password": .text(Self.newPassword)]
            }
            let (first, _) = try await FlowDriver.start(server, .registration)
            let (second, _) = try await FlowDriver.start(server, .registration)
            #expect(try await first.submit(profile("lee@example.com")).nodeID == FlowStep.verifyEmail.rawValue)
            let firstCode = try await first.latestCode()
            #expect(try await second.submit(profile("lee.park@example.com")).nodeID == FlowStep.verifyEmail.rawValue)
            let secondCode = try await second.latestCode()
            #expect(try await first.submit(["code": .text(firstCode)]).signedIn?.user.email == "lee@example.com")
            // The account creation fails on the taken name inside the submission's transaction; the rest commits.
            let back = try await second.submit(["code": .text(secondCode)])
            #expect(back.nodeID == FlowStep.register.rawValue && back.messageCode == "invalid_value")
            #expect(try await second.step() == .register)
            var renamed = profile("lee.park@example.com")
            renamed["username"] = "leepark"
            #expect(try await second.submit(renamed).nodeID == FlowStep.verifyEmail.rawValue)
            #expect(try await second.submit(["code": .text(try await second.latestCode())]).signedIn?.user.username == "leepark")
        }
    }

    @Test(
        "a code read out in a phone call: chosen over SMS, the call's text spells the code digit by digit, and it signs in with tel",
        arguments: TestEngine.available)
    func voiceCode(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.sms, .voice, .totp]
            configuration.signOn = signOn
        }
        try await TestServer.withServer(engine: engine, configure: policy) { server in
            let user = try await Self.addUserWithPhone(server)
            try await server.authenticators.addTOTP(userID: user.id, AuthenticatorStore.newTOTP(), usedStep: 0)
            let (flow, _) = try await FlowDriver.start(server)
            guard case .next(let choose) = try await flow.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the choice")
                return
            }
            #expect(choose.fields.first?.options?.map(\.value) == ["totp", "sms", "voice"])
            guard case .next(let call) = try await flow.submit(["factor": "voice"]) else {
                Issue.record("expected the call's node")
                return
            }
            #expect(call.id == FlowStep.voiceCode.rawValue && call.description.contains("ending in 00"))
            let message = try #require(try await server.courier.queue.list(limit: 1).first)
            #expect(message.channel == .voice && message.recipient == "+14155550100")
            let spoken = try #require(message.body.components(separatedBy: " is your").first)
            #expect(spoken.count == 16 && message.body.hasSuffix("Again, your code is: \(spoken)."), "\(message.body)")
            #expect(try await flow.submit(action: "resend").messageCode == "resend_too_soon")
            let done = try await flow.submit(["code": .text(spoken.filter(\.isNumber))])
            #expect(done.signedIn?.methods == ["pwd", "tel", "mfa"])
        }
    }

    @Test("serve refuses a voice factor whose calls have no delivery, and SMTP for calls")
    func voiceDelivery() throws {
        var configuration = ServerConfiguration()
        configuration.courier = CourierConfiguration(email: DeliverySettings(delivery: .outbox), sms: DeliverySettings(delivery: .outbox))
        try configuration.requireChosenDelivery()
        configuration.clientSignOn["app"] = SignOnPolicy(secondFactor: .ifEnrolled)
        configuration.clientSignOn["app"]?.factors = [.totp, .voice]
        #expect(throws: ConfigurationError.self) { try configuration.requireChosenDelivery() }
        configuration.courier.voice = DeliverySettings(delivery: .smtp)
        let smtp = #expect(throws: ConfigurationError.self) { try configuration.courier.validate() }
        #expect(smtp?.key == "courier.voice")
    }

    @Test("wrong codes by phone call end the flow at its limit and count against the account across flows", arguments: TestEngine.available)
    func voiceCodeGuessing(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.voice, .totp]
            signOn.maxCodeAttempts = 3
            configuration.signOn = signOn
            configuration.codeGuesses.maxFailures = 4
        }
        try await TestServer.withServer(engine: engine, configure: policy) { server in
            try await Self.addUserWithPhone(server)
            // First flow: three wrong codes, the flow's limit, end it.
            let (first, _) = try await FlowDriver.start(server)
            #expect(try await first.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.voiceCode.rawValue)
            for _ in 0..<2 { #expect(try await first.submit(["code": "000000"]).messageCode == "invalid_code") }
            guard case .failed = try await first.submit(["code": "000000"]) else {
                Issue.record("expected the flow to end")
                return
            }
            // Second flow: the fourth wrong code reaches the account's limit; then even the right code is refused.
            let (second, _) = try await FlowDriver.start(server)
            #expect(try await second.submit(["username": "kim", "password": .text(Self.password)]).nodeID == FlowStep.voiceCode.rawValue)
            #expect(try await second.submit(["code": "000000"]).messageCode == "invalid_code")
            let message = try #require(try await server.courier.queue.list(limit: 5).first { $0.channel == .voice })
            let right = String(try #require(message.body.components(separatedBy: " is your").first).filter(\.isNumber))
            #expect(try await second.submit(["code": .text(right)]).messageCode == "too_many_guesses")
        }
    }
}
