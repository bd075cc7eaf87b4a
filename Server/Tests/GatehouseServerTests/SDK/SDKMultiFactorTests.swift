import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

/// The SDK's multi-factor helper against a live server that requires a second factor: the step handler
/// computes TOTP codes from the enrolled secret, as an authenticator app would.
@Suite("SDK multi-factor sign-in against a live server")
struct SDKMultiFactorTests {
    /// Records the steps it was asked and answers them like a person with an authenticator app.
    actor Person {
        var steps: [MultifactorLogin.Step] = []
        var secret: [UInt8] = []
        var recoveryCodes: [String] = []
        var codesToTry: [String] = []
        var preferRecoveryCode = false
        /// Answer "Not now" when a second factor is only offered.
        var declineOffers = false

        func answer(_ step: MultifactorLogin.Step, now: Int64) -> MultifactorLogin.Answer {
            steps.append(step)
            switch step {
            case .enrollTOTP(_, let key):
                secret = Base32.decode(key ?? "") ?? []
                return .code(OneTimePassword(secret: secret).code(at: now))
            case .saveRecoveryCodes(let codes):
                recoveryCodes = codes
                return .done
            case .consent:
                return .deny  // this person's app is first-party: never asked
            case .createPasskey:
                return .skip  // this app has no passkey provider: never asked
            case .approveOnDevice:
                return .chooseAnother  // no authenticator app here: PushApprovalTests covers it
            case .chooseFactor(let factors):
                return .choose(preferRecoveryCode && factors.contains(.recoveryCode) ? .recoveryCode : .totp)
            case .chooseMethod(let methods):
                return .choose(methods.contains(.email) ? .email : methods[0])
            case .chooseEnrollment(let factors, let optional):
                return optional && declineOffers ? .skip : .choose(factors[0])
            case .newPassword:
                return .password(SDKMultiFactorTests.newPassword)
            case .enterPhoneNumber, .enterEmailAddress:
                // This person sets up only an authenticator app; SDKFactorEnrollmentTests covers the rest.
                return .done
            case .verifyCode(let factor, _):
                if !codesToTry.isEmpty { return .code(codesToTry.removeFirst()) }
                if factor == .recoveryCode { return .code(recoveryCodes[0]) }
                return .code(OneTimePassword(secret: secret).code(at: now + 30))
            }
        }

        func prepare(codes: [String], recovery: Bool = false, declineOffers: Bool = false) {
            steps = []
            codesToTry = codes
            preferRecoveryCode = recovery
            self.declineOffers = declineOffers
        }
    }

    @Test("an offered second factor: Not now signs in with the password; setting it up later goes through the same offer", arguments: TestEngine.available)
    func optionalEnrollment(engine: TestEngine) async throws {
        let policy = { (configuration: inout ServerConfiguration) in
            var signOn = SignOnPolicy(secondFactor: .ifEnrolled)
            signOn.optionalEnrollment = true
            configuration.clientSignOn["app"] = signOn
        }
        try await TestServer.withLiveServer(engine: engine, configure: policy) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = Person()
            let clock = server.clock
            let login = MultifactorLogin(client: client) { step in await person.answer(step, now: clock.now()) }
            await person.prepare(codes: [], declineOffers: true)
            let declined = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await declined.claims?.authenticationMethods == ["pwd"])
            #expect(await person.steps == [.chooseEnrollment(factors: [.totp], optional: true)])
            // The offer waits now; an operator's reset of the reminder brings it back at the next sign-in.
            let sam = try #require(try await server.users.find(username: "sam"))
            try await server.database.transaction { sql in
                try await sql.raw("UPDATE users SET enrollment_declined_at = NULL WHERE id = \(bind: sam.id)").run()
            }
            await person.prepare(codes: [])
            let enrolled = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await enrolled.claims?.authenticationMethods == ["pwd", "otp", "mfa"])
            let steps = await person.steps
            #expect(steps.first == .chooseEnrollment(factors: [.totp], optional: true) && steps.count == 3, "\(steps)")
        }
    }

    @Test("enroll TOTP on the first sign-in, then sign in with a code after a wrong one, then with a recovery code", arguments: TestEngine.available)
    func enrollThenChallenge(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: { $0.clientSignOn["app"] = SignOnPolicy(secondFactor: .required) }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = Person()
            let clock = server.clock
            let login = MultifactorLogin(client: client) { step in await person.answer(step, now: clock.now()) }

            let first = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await first.claims?.authenticationMethods == ["pwd", "otp", "mfa"])
            let enrollment = await person.steps
            #expect(enrollment.count == 2)
            guard case .enrollTOTP(let uri, let key) = enrollment.first else { Issue.record("expected enrollment, got \(enrollment)"); return }
            #expect(uri.hasPrefix("otpauth://totp/") && key?.count == 32)
            #expect(await person.recoveryCodes.count == 10)

            await person.prepare(codes: ["000000"])
            let second = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await second.claims?.authenticationMethods == ["pwd", "otp", "mfa"])
            let challenge = await person.steps
            #expect(challenge.first == .chooseFactor([.totp, .recoveryCode]))
            #expect(challenge.dropFirst().first == .verifyCode(factor: .totp, problem: nil))
            #expect(challenge.last == .verifyCode(factor: .totp, problem: "The code is incorrect."))

            await person.prepare(codes: [], recovery: true)
            _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await person.steps.last == .verifyCode(factor: .recoveryCode, problem: nil))
        }
    }

    static let newPassword = "a new passphrase nobody guesses"

    /// The code in the newest message the courier queued.
    static func latestCode(_ server: IdentityServer) async throws -> String {
        let message = try #require(try await server.courier.queue.list(limit: 1).first)
        // Every code leads its message: six digits, or a device confirmation's two groups of five characters.
        return String(message.body.prefix { !$0.isWhitespace })
    }

    @Test("register with a confirmed email, then reset the password with an emailed code", arguments: TestEngine.available)
    func registerThenReset(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: { $0.registration = RegistrationPolicy(enabled: true) }) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = Person()
            let flows = MultifactorLogin(client: client) { step in
                if case .verifyCode(let factor, _) = step, factor == .email { return .code(try await Self.latestCode(server)) }
                return await person.answer(step, now: 0)
            }
            let profile = MultifactorLogin.Profile(givenName: "Rosa", familyName: "Parks", email: "rosa@example.com")
            let registered = try await flows.register(username: "rosa", password: "she has a long passphrase", profile: profile)
            #expect(await registered.claims?.preferredUsername == "rosa")
            let user = try #require(try await server.users.find(username: "rosa"))
            #expect(user.emailVerified && user.givenName == "Rosa" && user.familyName == "Parks")

            await #expect(throws: GatehouseError.self) {
                _ = try await flows.register(username: "rosa", password: "she has a long passphrase", profile: profile)
            }

            let reset = try await flows.resetPassword(username: "rosa@example.com")
            #expect(await reset.claims?.authenticationMethods == ["otp"])
            #expect(await person.steps == [.chooseMethod([.email, .sms]), .newPassword(reason: .reset, problem: nil)])
            _ = try await flows.login(username: "rosa", password: Self.newPassword)
        }
    }

    @Test("change two-step verification: set up an app, replace it, then make new recovery codes", arguments: TestEngine.available)
    func enrollmentJourney(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = Person()
            let clock = server.clock
            let flows = MultifactorLogin(client: client) { step in await person.answer(step, now: clock.now()) }

            // The default policy asks no second factor at sign-in; the journey enrolls one anyway.
            let first = try await flows.enroll(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await first.claims?.authenticationMethods == ["pwd", "otp", "mfa"])
            #expect(await person.steps.count == 2)
            let (firstSecret, firstCodes) = (await person.secret, await person.recoveryCodes)

            await person.prepare(codes: [])
            _ = try await flows.enroll(username: "sam", password: SDKLiveFlowTests.password, change: .authenticatorApp)
            let replaced = await person.steps
            #expect(replaced.prefix(2) == [.chooseFactor([.totp, .recoveryCode]), .verifyCode(factor: .totp, problem: nil)])
            guard case .enrollTOTP = replaced.dropFirst(2).first else { Issue.record("expected a new app's enrollment, got \(replaced)"); return }
            #expect(await person.secret != firstSecret)
            #expect(Set(await person.recoveryCodes).isDisjoint(with: firstCodes))

            await person.prepare(codes: [])
            let secondCodes = await person.recoveryCodes
            _ = try await flows.enroll(username: "sam", password: SDKLiveFlowTests.password, change: .recoveryCodes)
            guard case .saveRecoveryCodes(let thirdCodes) = await person.steps.last else { Issue.record("expected new recovery codes"); return }
            #expect(await person.steps.count == 3 && thirdCodes.count == 10 && Set(thirdCodes).isDisjoint(with: secondCodes))
            #expect(
                try await server.authenticators.enrolledFactors(userID: #require(try await server.users.find(username: "sam")).id) == [.totp, .recoveryCode])
        }
    }

    @Test("too many wrong codes end the sign-in with a typed error", arguments: TestEngine.available)
    func tooManyWrongCodes(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(
            engine: engine,
            configure: { configuration in
                var policy = SignOnPolicy(secondFactor: .required)
                policy.maxCodeAttempts = 2
                configuration.clientSignOn["app"] = policy
            }
        ) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let person = Person()
            let clock = server.clock
            let login = MultifactorLogin(client: client) { step in await person.answer(step, now: clock.now()) }
            _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            await person.prepare(codes: ["000000", "999999", "123123"])
            await #expect(throws: GatehouseError.throttled) {
                _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            }
        }
    }

    @Test("sign-in status follows the node category")
    func status() {
        #expect(SignInStatus(category: "mfa_challenge") == .mfaChallenge)
        #expect(SignInStatus(category: "password_expired") == .passwordExpired)
        #expect(SignInStatus(category: "sign_in") == .signIn)
        #expect(SignInStatus(category: "brand_new") == .other("brand_new"))
    }
}
