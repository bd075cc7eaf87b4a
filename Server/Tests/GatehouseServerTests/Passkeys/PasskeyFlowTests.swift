import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseServer

/// Passkeys in the flow engine, driven in-process with a software authenticator: set up during sign-in, used as the
/// second factor, and every way an assertion must be refused.
@Suite("Passkeys in flows")
struct PasskeyFlowTests {
    static let password = FlowJourneyTests.password
    static let origin = "http://localhost:8080"

    /// A server on localhost (passkeys need a domain) whose policy requires a second factor: a passkey or TOTP.
    static func policy(userVerification: WebAuthnPolicy.Requirement = .preferred, passkeySignIn: Bool = false) -> (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.issuer = origin
            configuration.webAuthn.userVerification = userVerification
            var signOn = SignOnPolicy(secondFactor: .required)
            signOn.factors = [.passkey, .totp]
            signOn.maxCodeAttempts = 3
            signOn.passkeySignIn = passkeySignIn
            configuration.signOn = signOn
        }
    }

    /// The options JSON of the node's passkey field.
    static func options(_ outcome: LoginFlow.Outcome) throws -> String {
        guard case .next(let node) = outcome else { throw PasskeyTestError("expected a node, got \(outcome)") }
        return try #require(node.fields.first { $0.kind == .passkeyCreate || $0.kind == .passkeyGet }?.defaultValue)
    }

    struct PasskeyTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test(
        "a passkey signs in without the password where the policy allows it (hwk, user, mfa); one that did not verify the user, or that claims another user's handle, is refused",
        arguments: TestEngine.available)
    func passwordless(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy(passkeySignIn: true)) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let lee = try await FlowJourneyTests.addUser(server, "lee")
            let authenticator = try await Self.enroll(server, "kim")
            _ = try await Self.enroll(server, "lee")
            let (flow, first) = try await FlowDriver.start(server)
            #expect(first.actions.map(\.id).prefix(2) == ["submit", "passkey"])
            #expect(first.fields.first { $0.key == "username" }?.autocomplete == "username webauthn")
            let options = try #require(first.fields.first { $0.kind == .passkeyGet }?.defaultValue)
            #expect(options.contains(#""allowCredentials":[]"#), "nobody is known yet: any passkey of this site")
            let done = try await flow.submit(["credential": .text(try await authenticator.usePasskey(optionsJSON: options))], action: "passkey")
            #expect(done.signedIn?.user.id == kim.id && done.signedIn?.methods == ["hwk", "user", "mfa"])

            // Without user verification the passkey alone is one factor: refused.
            await authenticator.set(verifiesUser: false)
            let (second, secondNode) = try await FlowDriver.start(server)
            let unverified = try await authenticator.usePasskey(optionsJSON: try #require(secondNode.fields.first { $0.kind == .passkeyGet }?.defaultValue))
            let refused = try await second.submit(["credential": .text(unverified)], action: "passkey")
            #expect(refused.nodeID == FlowStep.credentials.rawValue && refused.messageCode == "invalid_credential")
            // Kim's passkey claiming to be Lee's (the user handle changed): refused.
            await authenticator.set(verifiesUser: true)
            guard case .retry(let renewed, _) = refused, let renewedOptions = renewed.fields.first(where: { $0.kind == .passkeyGet })?.defaultValue else {
                Issue.record("expected the sign-in node again")
                return
            }
            let leesHandle = Base64URL.encode(try await server.passkeys.userHandle(for: lee.id))
            let kimsHandle = Base64URL.encode(try await server.passkeys.userHandle(for: kim.id))
            let claimed = try await authenticator.usePasskey(optionsJSON: renewedOptions).replacingOccurrences(of: kimsHandle, with: leesHandle)
            #expect(try await second.submit(["credential": .text(claimed)], action: "passkey").messageCode == "invalid_credential")
        }
        // Identify-first sign-in offers the passkey on its first node; a passkey this server never registered is refused.
        try await TestServer.withServer(
            engine: engine,
            configure: {
                Self.policy(passkeySignIn: true)(&$0); $0.loginSteps = .identifyFirst
            }
        ) { server in
            try await FlowJourneyTests.addUser(server, "kim")
            let authenticator = try await Self.enroll(server, "kim")
            let (flow, first) = try await FlowDriver.start(server)
            #expect(first.id == FlowStep.identify.rawValue && first.actions.map(\.id).contains("passkey"))
            let options = try #require(first.fields.first { $0.kind == .passkeyGet }?.defaultValue)
            let stranger = SoftwarePasskey(origin: Self.origin)
            _ = try await stranger.createPasskey(optionsJSON: #"{"challenge":"AA","rp":{"id":"localhost"},"user":{"id":"AA"}}"#)
            let unknown = try await flow.submit(["credential": .text(try await stranger.usePasskey(optionsJSON: options))], action: "passkey")
            guard case .retry(let node, _) = unknown else {
                Issue.record("expected a refusal")
                return
            }
            #expect(node.messages.first?.text == WebAuthnError.wrongCredential.description)
            let renewed = try #require(node.fields.first { $0.kind == .passkeyGet }?.defaultValue)
            #expect(renewed != options, "a failed attempt replaces the challenge")
            let done = try await flow.submit(["credential": .text(try await authenticator.usePasskey(optionsJSON: renewed))], action: "passkey")
            #expect(done.signedIn?.methods == ["hwk", "user", "mfa"])
        }
        // A policy without passkey_sign_in offers no passkey on the sign-in node.
        try await TestServer.withServer(engine: engine, configure: Self.policy()) { server in
            let (_, first) = try await FlowDriver.start(server)
            #expect(!first.actions.contains { $0.id == "passkey" } && !first.fields.contains { $0.kind == .passkeyGet })
        }
    }

    @Test("a new account is offered a passkey right after registration, and Not now finishes the registration", arguments: TestEngine.available)
    func offeredAtRegistration(engine: TestEngine) async throws {
        let configure = { (configuration: inout ServerConfiguration) in
            configuration.issuer = Self.origin
            configuration.registration = RegistrationPolicy(enabled: true)
            var signOn = SignOnPolicy(secondFactor: .ifEnrolled)
            signOn.factors = [.passkey]
            configuration.signOn = signOn
        }
        try await TestServer.withServer(engine: engine, configure: configure) { server in
            func register(_ name: String) async throws -> (FlowDriver, FlowNode) {
                let (flow, _) = try await FlowDriver.start(server, .registration)
                let profile: [String: FieldValue] = [
                    "given_name": "Lee", "family_name": "Park", "email": .text("\(name)@example.com"), "username": .text(name),
                    "new_password": .text(FlowJourneyTests.newPassword),
                ]
                #expect(try await flow.submit(profile).nodeID == FlowStep.verifyEmail.rawValue)
                guard case .next(let offer) = try await flow.submit(["code": .text(try await flow.latestCode())]) else {
                    throw PasskeyTestError("expected the passkey offer")
                }
                return (flow, offer)
            }
            let (first, offer) = try await register("lee")
            #expect(offer.id == FlowStep.enrollPasskey.rawValue && offer.actions.map(\.id) == ["submit", "skip"])
            #expect(try await first.submit(action: "skip").signedIn?.methods == ["pwd"])
            let (second, secondOffer) = try await register("max")
            let authenticator = SoftwarePasskey(origin: Self.origin)
            let credential = try await authenticator.createPasskey(optionsJSON: try #require(secondOffer.fields.first?.defaultValue))
            #expect(try await second.submit(["credential": .text(credential)]).signedIn?.methods == ["pwd", "hwk", "mfa"])
            let max = try #require(try await server.users.find(username: "max"))
            #expect(try await server.passkeys.list(userID: max.id).count == 1)
        }
    }

    @Test("require_attestation refuses a passkey whose authenticator does not attest its model", arguments: TestEngine.available)
    func requiredAttestation(engine: TestEngine) async throws {
        let configure = { (configuration: inout ServerConfiguration) in
            Self.policy()(&configuration)
            configuration.webAuthn.attestation = .direct
            configuration.webAuthn.requireAttestation = true
        }
        try await TestServer.withServer(engine: engine, configure: configure) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let (flow, _) = try await FlowDriver.start(server)
            _ = try await flow.submit(["username": "kim", "password": .text(Self.password)])
            let options = try Self.options(try await flow.submit(["factor": "passkey"]))
            #expect(options.contains(#""attestation":"direct""#))
            let refused = try await flow.submit(["credential": .text(try await SoftwarePasskey(origin: Self.origin).createPasskey(optionsJSON: options))])
            guard case .retry(let node, _) = refused else {
                Issue.record("expected a refusal")
                return
            }
            #expect(node.messages.first?.text.contains("attest their model") == true)
            #expect(try await server.passkeys.list(userID: kim.id).isEmpty)
        }
    }

    @Test("a password reset still asks a passkey-only account for its passkey before the new password", arguments: TestEngine.available)
    func recovery(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy()) { server in
            try await FlowJourneyTests.addUser(server, "kim")
            let authenticator = try await Self.enroll(server, "kim")
            let (flow, _) = try await FlowDriver.start(server, .recovery)
            #expect(try await flow.submit(["username": "kim@example.com"]).nodeID == FlowStep.recoveryChoose.rawValue)
            #expect(try await flow.submit(["method": "email"]).nodeID == FlowStep.resetCode.rawValue)
            let challenge = try await flow.submit(["code": .text(try await flow.latestCode())])
            #expect(challenge.nodeID == FlowStep.passkey.rawValue, "recovery must not skip the second factor")
            let assertion = try await authenticator.usePasskey(optionsJSON: try Self.options(challenge))
            #expect(try await flow.submit(["credential": .text(assertion)]).nodeID == FlowStep.recoveryPassword.rawValue)
        }
    }

    /// Signs `name` up with a passkey at a sign-in where one is required; returns the authenticator.
    static func enroll(_ server: IdentityServer, _ name: String, authenticator: SoftwarePasskey? = nil) async throws -> SoftwarePasskey {
        let authenticator = authenticator ?? SoftwarePasskey(origin: origin)
        let (flow, _) = try await FlowDriver.start(server)
        var outcome = try await flow.submit(["username": .text(name), "password": .text(password)])
        // Identify-first asks for the password on a node of its own.
        if outcome.nodeID == FlowStep.password.rawValue { outcome = try await flow.submit(["password": .text(password)]) }
        #expect(outcome.nodeID == FlowStep.enrollOffer.rawValue)
        let options = try Self.options(try await flow.submit(["factor": "passkey"]))
        let credential = try await authenticator.createPasskey(optionsJSON: options)
        let done = try await flow.submit(["credential": .text(credential), "name": "Laptop"])
        #expect(done.signedIn?.methods == ["pwd", "hwk", "mfa"], "\(done)")
        return authenticator
    }

    /// Starts a sign-in for `name` up to the passkey node; returns the flow and its options.
    static func challenge(_ server: IdentityServer, _ name: String = "kim") async throws -> (FlowDriver, String) {
        let (flow, _) = try await FlowDriver.start(server)
        let outcome = try await flow.submit(["username": .text(name), "password": .text(password)])
        #expect(outcome.nodeID == FlowStep.passkey.rawValue)
        return (flow, try Self.options(outcome))
    }

    @Test("a passkey set up at sign-in, stored with its name, then signing in as the second factor with hwk and user", arguments: TestEngine.available)
    func enrollThenUse(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy()) { server in
            let kim = try await FlowJourneyTests.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            guard case .next(let offer) = try await flow.submit(["username": "kim", "password": .text(Self.password)]) else {
                Issue.record("expected the offer")
                return
            }
            #expect(offer.fields.first?.options?.map(\.value) == ["passkey", "totp"])
            let options = try Self.options(try await flow.submit(["factor": "passkey"]))
            let creation = try #require(try JSONSerialization.jsonObject(with: Data(options.utf8)) as? [String: Any])
            #expect((creation["rp"] as? [String: Any])?["id"] as? String == "localhost")
            let handle = try #require((creation["user"] as? [String: Any])?["id"] as? String)
            #expect(Base64URL.decode(handle).map(Array.init) == (try await server.passkeys.userHandle(for: kim.id)) && handle != kim.id)
            #expect((creation["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-8, -7, -257])
            let authenticator = SoftwarePasskey(origin: Self.origin)
            let done = try await flow.submit(["credential": .text(try await authenticator.createPasskey(optionsJSON: options)), "name": "  Laptop "])
            #expect(done.signedIn?.methods == ["pwd", "hwk", "mfa"])
            let stored = try await server.passkeys.list(userID: kim.id)
            #expect(stored.map(\.name) == ["Laptop"] && stored.first?.attestation == "none" && stored.first?.transports == ["internal"])
            #expect(try await server.courier.queue.list(recipient: "kim@example.com", limit: 1).first?.template == "passkey_added")

            // The next sign-in asks for it, naming it among the allowed credentials; a use counts.
            let (next, request) = try await Self.challenge(server)
            #expect(request.contains(Base64URL.encode(try #require(stored.first).credentialID)))
            let used = try await next.submit(["credential": .text(try await authenticator.usePasskey(optionsJSON: request))])
            #expect(used.signedIn?.methods == ["pwd", "hwk", "user", "mfa"])
            #expect(try await server.passkeys.list(userID: kim.id).first?.signCount == 1)
        }
    }

    @Test(
        "refused: a replayed assertion, one made for another flow's challenge, another user's passkey, another origin, and malformed JSON; the attempts are limited",
        arguments: TestEngine.available)
    func refusals(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy()) { server in
            try await FlowJourneyTests.addUser(server, "kim")
            try await FlowJourneyTests.addUser(server, "lee")
            let kims = try await Self.enroll(server, "kim")
            let lees = try await Self.enroll(server, "lee")

            let (first, firstOptions) = try await Self.challenge(server)
            let assertion = try await kims.usePasskey(optionsJSON: firstOptions)
            #expect(try await first.submit(["credential": .text(assertion)]).signedIn != nil)
            // The same assertion again, in a new flow: its challenge was the finished flow's.
            let (replay, replayOptions) = try await Self.challenge(server)
            #expect(try await replay.submit(["credential": .text(assertion)]).messageCode == "invalid_credential")
            // Made for another flow's challenge.
            let (other, otherOptions) = try await Self.challenge(server)
            #expect(try await replay.submit(["credential": .text(try await kims.usePasskey(optionsJSON: otherOptions))]).messageCode == "invalid_credential")
            // Lee's passkey on Kim's sign-in, for Kim's challenge (Lee's authenticator ignores the allow list here).
            let leesAssertion = try await lees.usePasskey(
                optionsJSON: replayOptions.replacingOccurrences(of: #""allowCredentials":[{"#, with: #""ignored":[{"#))
            let refused = try await other.submit(["credential": .text(leesAssertion)])
            #expect(refused.messageCode == "invalid_credential")
            if case .retry(let node, _) = refused { #expect(node.messages.first?.text == WebAuthnError.wrongCredential.description) }
            // Input that is no credential at all is a malformed request, refused whole without counting.
            let (third, thirdOptions) = try await Self.challenge(server)
            for malformed in ["{not json", "[]", #"{"id":"a","rawId":"b","type":"public-key","response":{}}"#] {
                await #expect(throws: OAuthError.self, "\(malformed)") { _ = try await third.submit(["credential": .text(malformed)]) }
            }
            // Another page's origin three times: the third failure of this flow ends it.
            await kims.set(origin: "https://evil.example")
            var options = thirdOptions
            for attempt in 1...3 {
                let outcome = try await third.submit(["credential": .text(try await kims.usePasskey(optionsJSON: options))])
                if attempt < 3 {
                    #expect(outcome.messageCode == "invalid_credential")
                    options = try Self.options(.next(try #require({ if case .retry(let node, _) = outcome { node } else { nil } }())))
                } else {
                    guard case .failed = outcome else {
                        Issue.record("expected the third failure to end the flow")
                        return
                    }
                }
            }
        }
    }

    @Test(
        "a counter that went back is refused as a possible clone; user verification required refuses an authenticator that skipped it",
        arguments: TestEngine.available)
    func counterAndVerification(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy(userVerification: .required)) { server in
            try await FlowJourneyTests.addUser(server, "kim")
            let authenticator = try await Self.enroll(server, "kim")
            let (flow, options) = try await Self.challenge(server)
            #expect(try await flow.submit(["credential": .text(try await authenticator.usePasskey(optionsJSON: options))]).signedIn != nil)
            await authenticator.resetCounter()
            let (cloned, clonedOptions) = try await Self.challenge(server)
            let refused = try await cloned.submit(["credential": .text(try await authenticator.usePasskey(optionsJSON: clonedOptions))])
            guard case .retry(let node, _) = refused else {
                Issue.record("expected a refusal")
                return
            }
            #expect(node.messages.first?.text.contains("may have been copied") == true)
            await authenticator.set(verifiesUser: false)
            let (unverified, unverifiedOptions) = try await Self.challenge(server)
            let skipped = try await unverified.submit(["credential": .text(try await authenticator.usePasskey(optionsJSON: unverifiedOptions))])
            if case .retry(let node, _) = skipped {
                #expect(node.messages.first?.text == WebAuthnError.userNotVerified.description)
            } else {
                Issue.record("expected a refusal")
            }
        }
    }

    @Test("two concurrent submissions of the same assertion sign in at most once", arguments: TestEngine.available)
    func concurrentSubmissions(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy()) { server in
            try await FlowJourneyTests.addUser(server, "kim")
            let authenticator = try await Self.enroll(server, "kim")
            let (flow, options) = try await Self.challenge(server)
            let assertion = try await authenticator.usePasskey(optionsJSON: options)
            async let first = flow.submit(["credential": .text(assertion)])
            async let second = flow.submit(["credential": .text(assertion)])
            let outcomes = try await [first, second]
            #expect(outcomes.filter { $0.signedIn != nil }.count == 1, "\(outcomes)")
        }
    }

    @Test("the enrollment journey adds a second passkey and leaves out the first; a credential registered before is refused", arguments: TestEngine.available)
    func secondPasskey(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.policy()) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let phone = try await Self.enroll(server, "kim")
            let first = try #require(try await server.passkeys.list(userID: kim.id).first)
            let (journey, _) = try await FlowDriver.start(server, .enrollment)
            let signIn = try await journey.submit(["username": "kim", "password": .text(Self.password)])
            let request = try Self.options(signIn)
            #expect(try await journey.submit(["credential": .text(try await phone.usePasskey(optionsJSON: request))]).nodeID == FlowStep.enrollChoose.rawValue)
            let creation = try Self.options(try await journey.submit(["setup": "passkey"]))
            #expect(creation.contains(#""excludeCredentials":[{"id":"\#(Base64URL.encode(first.credentialID))""#))
            // The phone refuses to make a second passkey for the same account; the server refuses a credential it has.
            await #expect(throws: SoftwarePasskey.Refusal.self) { _ = try await phone.createPasskey(optionsJSON: creation) }
            let challenge = try #require(creation.split(separator: "\"challenge\":\"").last?.split(separator: "\"").first)
            let again = await phone.registrationJSON(for: try #require(await phone.credentials.first), challenge: String(challenge))
            #expect(try await journey.submit(["credential": .text(again)]).messageCode == "invalid_credential")
            // Back to the choice and a security key instead.
            #expect(try await journey.submit(action: "choose").nodeID == FlowStep.enrollChoose.rawValue)
            let key = SoftwarePasskey(origin: Self.origin)
            let renewed = try Self.options(try await journey.submit(["setup": "passkey"]))
            #expect(try await journey.submit(["credential": .text(try await key.createPasskey(optionsJSON: renewed)), "name": "Security key"]).signedIn != nil)
            #expect(Set(try await server.passkeys.list(userID: kim.id).map(\.name)) == ["Laptop", "Security key"])
        }
    }
}
