import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// "Approve on your phone" against a live server, with the SDK as the authenticator app: the push (kept in the outbox,
/// as no APNs is configured), the number the node shows among the app's three, the PIN; a wrong number, "this wasn't
/// me", an expired push, and wrong numbers counted like other factors' codes.
@Suite("Push approval with number matching")
struct PushApprovalTests {
    static let token = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"

    static func configure(_ configuration: inout ServerConfiguration) {
        var policy = SignOnPolicy(secondFactor: .required)
        policy.factors = [.push, .totp]
        configuration.clientSignOn["app"] = policy
    }

    /// Sam's registered app, which takes pushes; the client the browser-less sign-in runs on.
    static func prepare(_ server: IdentityServer, issuer: URL) async throws -> (GatehouseClient, DeviceAuthenticator, String, MemoryTokenStorage) {
        let (client, authenticator, storage) = try await DeviceAuthenticatorTests.prepare(server, issuer: issuer)
        let record = try await DeviceAuthenticatorTests.register(authenticator, server: server, issuer: issuer)
        try await authenticator.registerPushToken(Self.token, platform: .apns, for: record.id)
        return (client, authenticator, record.id, storage)
    }

    /// The newest push in the outbox, as the notification's JSON an app hands the SDK.
    static func latestPush(_ server: IdentityServer) throws -> Data {
        let push = try #require(server.pushes.outboxed().last)
        return try JSONSerialization.data(withJSONObject: [
            "aps": ["alert": ["title": "Sign in?"]],
            "gatehouse": ["service": push.service, "identity_id": push.identityID, "session_id": push.sessionID],
        ])
    }

    @Test("the node shows a number, the app offers it among three; the right one with the PIN signs in with swk and pin", arguments: TestEngine.available)
    func approves(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: Self.configure) { server, issuer in
            let (client, app, identityID, _) = try await Self.prepare(server, issuer: issuer)
            let sam = try #require(try await server.users.find(username: "sam"))
            #expect(try await server.authenticators.enrolledFactors(userID: sam.id) == [.push])
            let shown = LockedList()
            let login = MultifactorLogin(client: client) { step in
                guard case .approveOnDevice(let number, nil) = step else { return .done }
                shown.append(String(number))
                let request = try await app.handlePush(try Self.latestPush(server))
                #expect(request.identityID == identityID && request.username == "sam" && request.clientName == "app")
                #expect(request.numberChoices.count == 3 && Set(request.numberChoices).count == 3 && request.numberChoices.contains(number))
                #expect(request.numberChoices.allSatisfy { (10...99).contains($0) })
                // Asking again shows the same three: nothing to learn by reading twice.
                #expect(try await app.handlePush(try Self.latestPush(server)).numberChoices == request.numberChoices)
                try await app.approve(request, number: number, pin: DeviceAuthenticatorTests.pin)
                return .done
            }
            let user = try await login.login(username: "sam", password: SDKLiveFlowTests.password)
            #expect(await user.claims?.authenticationMethods == ["pwd", "swk", "pin", "mfa"])
            #expect(shown.items.count == 1)
            // A used push cannot be approved again.
            await #expect(throws: DeviceAuthenticatorError.sessionExpired) { _ = try await app.handlePush(try Self.latestPush(server)) }
        }
    }

    @Test("a wrong number denies the sign-in, audited and told to the owner; the node says denied; this wasn't me is recorded too")
    func wrongNumberAndFraud() async throws {
        try await TestServer.withLiveServer(configure: Self.configure) { server, issuer in
            let (client, app, identityID, _) = try await Self.prepare(server, issuer: issuer)
            let waits = LockedList()
            let login = MultifactorLogin(client: client) { step in
                guard case .approveOnDevice(let number, let problem) = step else { return .done }
                if let problem {
                    waits.append(problem)
                    return .chooseAnother
                }
                let request = try await app.handlePush(try Self.latestPush(server))
                let wrong = try #require(request.numberChoices.first { $0 != number })
                await #expect(throws: DeviceAuthenticatorError.wrongNumber) {
                    try await app.approve(request, number: wrong, pin: DeviceAuthenticatorTests.pin)
                }
                // Denied for good: the right number no longer helps.
                await #expect(throws: DeviceAuthenticatorError.sessionExpired) {
                    try await app.approve(request, number: number, pin: DeviceAuthenticatorTests.pin)
                }
                return .done
            }
            // After the denial the node says so; choosing another way finds no other factor set up.
            await #expect(throws: GatehouseError.self) { _ = try await login.login(username: "sam", password: SDKLiveFlowTests.password) }
            #expect(waits.items.first?.contains("denied") == true, "\(waits.items)")
            let denials = try await server.audit.events(.init(types: [.pushDenied]), limit: 10)
            #expect(denials.map { $0.details["reason"] } == ["wrong_number"] && denials.first?.details["identity"] == identityID)
            let notices = try await server.courier.queue.list(recipient: "sam@example.com", limit: 10).filter { $0.template == "push_denied" }
            #expect(notices.count == 1)

            // "This wasn't me."
            let reporter = MultifactorLogin(client: client) { step in
                guard case .approveOnDevice(_, nil) = step else { return .chooseAnother }
                try await app.deny(try await app.handlePush(try Self.latestPush(server)), reportFraud: true)
                return .done
            }
            await #expect(throws: GatehouseError.self) { _ = try await reporter.login(username: "sam", password: SDKLiveFlowTests.password) }
            let reasons = try await server.audit.events(.init(types: [.pushDenied]), limit: 10).map { $0.details["reason"] }
            #expect(Set(reasons) == ["wrong_number", "reported"])
        }
    }

    @Test(
        "no second push within the resend delay; an expired push is refused; wrong numbers count like other codes until the account's limit blocks them; untrusted services refused"
    )
    func expiryGuessesAndTrust() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withLiveServer(
            clock: clock,
            configure: { configuration in
                Self.configure(&configuration)
                configuration.codeGuesses.maxFailures = 2
            }
        ) { server, issuer in
            let (client, app, _, storage) = try await Self.prepare(server, issuer: issuer)
            // Expired: the push outlives nothing.
            guard case .continue(var first) = await client.start() else { throw DeviceAuthenticatorTests.Failure("no sign-in node") }
            first["username"] = "sam"
            first["password"] = SDKLiveFlowTests.password
            guard case .continue(let pushNode) = await first.next(), pushNode.step == .push else { throw DeviceAuthenticatorTests.Failure("no push node") }
            let stale = try Self.latestPush(server)
            // Another push only after the resend delay.
            guard case .error(let tooSoon) = await pushNode.next(try #require(pushNode.submit(.resend))) else {
                throw DeviceAuthenticatorTests.Failure("expected a second push at once to be refused")
            }
            #expect(tooSoon.messages.first?.code == "resend_too_soon" && server.pushes.outboxed().count == 1)
            advance(121)
            await #expect(throws: DeviceAuthenticatorError.sessionExpired) { _ = try await app.handlePush(stale) }
            guard case .error(let expired) = await pushNode.next(try #require(pushNode.submit(.check))) else {
                throw DeviceAuthenticatorTests.Failure("expected the node to say the push expired")
            }
            #expect(expired.messages.first?.code == "push_expired")

            // Wrong numbers, each in a new push: the second reaches the limit, the third is refused before comparing.
            var refusals: [DeviceAuthenticatorError] = []
            for _ in 0..<3 {
                guard case .continue(let resent) = await expired.retry.next(try #require(expired.retry.submit(.resend))) else { continue }
                let number = try #require(resent.node.fields.first { $0.key == "number" }?.defaultValue.flatMap { Int($0) })
                let request = try await app.handlePush(try Self.latestPush(server))
                let wrong = try #require(request.numberChoices.first { $0 != number })
                do throws(DeviceAuthenticatorError) {
                    try await app.approve(request, number: wrong, pin: DeviceAuthenticatorTests.pin)
                } catch {
                    refusals.append(error)
                }
                advance(31)  // past the resend delay
            }
            #expect(Array(refusals.prefix(2)) == [.wrongNumber, .wrongNumber])
            guard refusals.count == 3, case .service(429, "too_many_attempts", _) = refusals[2] else {
                Issue.record("expected the third wrong number to be refused by the account's limit: \(refusals)")
                return
            }

            // An app that serves another company's service does not even read the push.
            let elsewhere = DeviceAuthenticator(
                app: DeviceAuthenticatorTests.app, storage: storage, trustedServices: [URL(string: "https://id.other.example/authenticator")!])
            await #expect(throws: DeviceAuthenticatorError.untrustedService(issuer.host ?? "")) { _ = try await elsewhere.handlePush(stale) }
            await #expect(throws: DeviceAuthenticatorError.notAGatehousePush) { _ = try await app.handlePush(Data(#"{"aps": {}}"#.utf8)) }
        }
    }

    @Test("instead of the password: the push for the name typed signs in like a QR code; a name without an app gets the same page and no push")
    func insteadOfThePassword() async throws {
        try await TestServer.withLiveServer(configure: { configuration in
            var policy = SignOnPolicy()
            policy.pushSignIn = true
            configuration.clientSignOn["app"] = policy
        }) { server, issuer in
            let (client, app, _, _) = try await Self.prepare(server, issuer: issuer)
            let login = MultifactorLogin(client: client) { step in
                guard case .approveOnDevice(let number, nil) = step else { return .chooseAnother }
                try await app.approve(try await app.handlePush(try Self.latestPush(server)), number: number, pin: DeviceAuthenticatorTests.pin)
                return .done
            }
            let user = try await login.loginWithPush(username: "sam")
            #expect(await user.claims?.authenticationMethods == ["swk", "pin"])
            #expect(server.pushes.outboxed().count == 1)

            // Nobody by that name: the same node with a number, waiting; no push anywhere.
            let asked = LockedList()
            let stranger = MultifactorLogin(client: client) { step in
                guard case .approveOnDevice(let number, let problem) = step else { return .chooseAnother }
                asked.append("\(number) \(problem ?? "")")
                return problem == nil ? .done : .chooseAnother
            }
            await #expect(throws: GatehouseError.self) { _ = try await stranger.loginWithPush(username: "nobody") }
            #expect(server.pushes.outboxed().count == 1)
            #expect(asked.items.count == 2 && asked.items[1].contains("Waiting for approval"), "\(asked.items)")
        }
    }
}
