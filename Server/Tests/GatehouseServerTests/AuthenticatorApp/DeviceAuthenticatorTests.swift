import Crypto
import CryptoExtras
import Foundation
import Gatehouse
import GatehouseProtocol
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The SDK's device authenticator against a live server: registration, QR sign-in sessions, the PIN's
/// counted attempts, and the app checks.
@Suite("Device authenticator with a PIN")
struct DeviceAuthenticatorTests {
    static let app = AuthenticatorApp(name: "test-authenticator", version: "1.2.0")
    static let pin = "4711"

    /// A user `sam` and a public client `app` whose sign-on policy offers sign-in with the app.
    static func configure(_ configuration: inout ServerConfiguration) {
        var policy = SignOnPolicy()
        policy.appLogin = true
        configuration.signOn = policy
    }

    static func prepare(_ server: IdentityServer, issuer: URL) async throws -> (GatehouseClient, DeviceAuthenticator, MemoryTokenStorage) {
        let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
        let storage = MemoryTokenStorage()
        return (client, DeviceAuthenticator(app: app, storage: storage), storage)
    }

    /// Registers an identity for sam with `pin`, reading the code from the courier's queue as a person reads their email.
    static func register(_ authenticator: DeviceAuthenticator, server: IdentityServer, issuer: URL, pin: String = pin) async throws -> DeviceIdentityRecord {
        let service = try await authenticator.service(at: issuer.appendingPathComponent("authenticator"))
        let started = try await authenticator.register(at: service, email: "sam@example.com", deviceName: "test phone")
        try await authenticator.confirm(started.id, code: try await SDKMultiFactorTests.latestCode(server))
        return try await authenticator.setPIN(pin, for: started.id)
    }

    /// Starts an app's native login flow and chooses "Sign in with the app": the QR payload the page would show.
    static func qrPayload(_ client: GatehouseClient) async throws -> (QRLoginPayload, ContinueNode) {
        guard case .continue(let first) = await client.start(), let app = first.submits.first(where: { $0.id == "app" }) else {
            throw Failure("the login node offers no sign-in with the app")
        }
        guard case .continue(let shown) = await first.next(app), let content = shown.node.fields.first(where: { $0.kind == .qrCode })?.defaultValue else {
            throw Failure("no QR node")
        }
        return (try QRLoginPayload(parsing: content), shown)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func pinEvaluations(_ server: IdentityServer, _ id: String) async throws -> (failures: Int, evaluations: Int) {
        try await server.database.read { sql in
            let row = try #require(try await sql.raw("SELECT pin_failures, pin_evaluations FROM device_identities WHERE id = \(bind: id)").first())
            return (try row.decode(column: "pin_failures", as: Int.self), try row.decode(column: "pin_evaluations", as: Int.self))
        }
    }

    @Test("register, approve a QR sign-in, and sign in directly in the app: both end in tokens for the user", arguments: TestEngine.available)
    func fullSequence(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: Self.configure) { server, issuer in
            let (client, authenticator, _) = try await Self.prepare(server, issuer: issuer)
            let record = try await Self.register(authenticator, server: server, issuer: issuer)
            #expect(record.state == .registered && record.username == "sam")

            // The QR path: the page's flow waits, the app approves, the flow completes.
            let (payload, shown) = try await Self.qrPayload(client)
            let request = try await authenticator.begin(payload)
            #expect(request.clientName == "app" && request.username == "sam" && request.identityID == record.id)
            try await authenticator.approve(request, pin: Self.pin)
            guard let check = shown.submits.first(where: { $0.id == "check" }), case .success(let success) = await shown.next(check) else {
                Issue.record("the approved flow did not complete")
                return
            }
            #expect(success.claims.preferredUsername == "sam" && success.claims.authenticationMethods == ["swk", "pin"])

            // Directly in the app: the same identity, the same PIN, a native flow, tokens.
            let user = try await authenticator.signIn(with: record.id, pin: Self.pin, client: client)
            #expect(await user.claims?.preferredUsername == "sam")
            #expect(try await Self.pinEvaluations(server, record.id) == (0, 2))

            // Deleting removes it at the server too: its secret no longer works.
            try await authenticator.delete(record.id)
            #expect(try await authenticator.identities().isEmpty)
            #expect(try await server.deviceIdentities.list().isEmpty)
        }
    }

    @Test("three wrong PINs block the identity and a fourth, correct one is refused; a correct PIN resets the count")
    func wrongPINsBlock() async throws {
        try await TestServer.withLiveServer(configure: Self.configure) { server, issuer in
            let (client, authenticator, storage) = try await Self.prepare(server, issuer: issuer)
            let record = try await Self.register(authenticator, server: server, issuer: issuer)
            // A copy of the device store as it is now, before anything is blocked: an attacker's stolen copy.
            let copy = MemoryTokenStorage()
            try await copy.write(try #require(try await storage.read(account: DeviceAuthenticator.storageAccount)), account: DeviceAuthenticator.storageAccount)

            var (payload, shown) = try await Self.qrPayload(client)
            var request = try await authenticator.begin(payload)
            // A wrong PIN, then the right one: the count starts again.
            await #expect(throws: DeviceAuthenticatorError.wrongPIN(attemptsRemaining: 2)) { try await authenticator.approve(request, pin: "0000") }
            try await authenticator.approve(request, pin: Self.pin)
            #expect(try await Self.pinEvaluations(server, record.id).failures == 0)
            _ = await shown.next(try #require(shown.submits.first { $0.id == "check" }))

            (payload, shown) = try await Self.qrPayload(client)
            request = try await authenticator.begin(payload)
            await #expect(throws: DeviceAuthenticatorError.wrongPIN(attemptsRemaining: 2)) { try await authenticator.approve(request, pin: "1111") }
            await #expect(throws: DeviceAuthenticatorError.wrongPIN(attemptsRemaining: 1)) { try await authenticator.approve(request, pin: "2222") }
            await #expect(throws: DeviceAuthenticatorError.identityBlocked) { try await authenticator.approve(request, pin: "3333") }
            #expect(try await authenticator.identity(record.id).state == .blocked)
            #expect(try await Self.pinEvaluations(server, record.id) == (3, 5))

            // The right PIN from the copy, which still believes the identity is registered: the server refuses it unevaluated.
            let stolen = DeviceAuthenticator(app: Self.app, storage: copy)
            await #expect(throws: DeviceAuthenticatorError.identityBlocked) { try await stolen.approve(request, pin: Self.pin) }
            #expect(try await Self.pinEvaluations(server, record.id) == (3, 5))
            #expect(try await stolen.identity(record.id).state == .blocked)
            #expect(try await authenticator.refresh(record.id).state == .blocked)
            let next = try await Self.qrPayload(client).0
            await #expect(throws: DeviceAuthenticatorError.identityBlocked) { try await authenticator.begin(next) }
            // The app's way out: delete it and register again.
            try await authenticator.delete(record.id)
            let again = try await Self.register(authenticator, server: server, issuer: issuer)
            try await authenticator.approve(try await authenticator.begin(next), pin: Self.pin)
            #expect(again.id != record.id)

            // Two wrong PINs and the right one as the limit's last attempt: blocked for a moment, lifted by the proof.
            let lastRequest = try await authenticator.begin(try await Self.qrPayload(client).0)
            await #expect(throws: DeviceAuthenticatorError.wrongPIN(attemptsRemaining: 2)) { try await authenticator.approve(lastRequest, pin: "4444") }
            await #expect(throws: DeviceAuthenticatorError.wrongPIN(attemptsRemaining: 1)) { try await authenticator.approve(lastRequest, pin: "5555") }
            try await authenticator.approve(lastRequest, pin: Self.pin)
            let blocks = try await server.audit.events(.init(types: [.deviceIdentityBlocked, .deviceIdentityUnblocked]), limit: 10)
            #expect(blocks.map(\.type) == [.deviceIdentityBlocked, .deviceIdentityBlocked, .deviceIdentityUnblocked])
            #expect(blocks.map { $0.details["identity"] } == [record.id, again.id, again.id])
        }
    }

    @Test("ten concurrent wrong PINs never get more evaluations than the limit", arguments: TestEngine.available)
    func concurrentWrongPINs(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine, configure: Self.configure) { server, issuer in
            let (client, authenticator, _) = try await Self.prepare(server, issuer: issuer)
            let record = try await Self.register(authenticator, server: server, issuer: issuer)
            let request = try await authenticator.begin(try await Self.qrPayload(client).0)
            let outcomes = await withTaskGroup(of: DeviceAuthenticatorError?.self) { group in
                for guess in 0..<10 {
                    group.addTask {
                        do throws(DeviceAuthenticatorError) {
                            try await authenticator.approve(request, pin: String(format: "%04d", 9000 + guess))
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            // Every one failed; the server evaluated exactly three (the others were refused before evaluation).
            #expect(outcomes.count == 10 && outcomes.allSatisfy { $0 != nil })
            #expect(try await Self.pinEvaluations(server, record.id) == (3, 3))
            let wrong = outcomes.filter { if case .wrongPIN = $0 { true } else { false } }.count
            #expect(wrong <= 2)
            #expect(outcomes.filter { $0 == .identityBlocked }.count == 10 - wrong)
        }
    }

    @Test("an expired access code and a used one are refused with the same typed error")
    func expiredAndReusedCodes() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withLiveServer(clock: clock, configure: Self.configure) { server, issuer in
            let (client, authenticator, _) = try await Self.prepare(server, issuer: issuer)
            _ = try await Self.register(authenticator, server: server, issuer: issuer)
            let (expiring, shown) = try await Self.qrPayload(client)
            advance(server.configuration.authenticator.accessCodeLifetime + 1)
            await #expect(throws: DeviceAuthenticatorError.sessionExpired) { try await authenticator.begin(expiring) }
            // The page says so, and offers a new code.
            guard case .error(let error) = await shown.next(try #require(shown.submits.first { $0.id == "check" })) else {
                Issue.record("expected the node again with a message")
                return
            }
            #expect(error.messages.first?.code == "app_login_expired")

            let (payload, _) = try await Self.qrPayload(client)
            let first = try await authenticator.begin(payload)
            await #expect(throws: DeviceAuthenticatorError.sessionExpired) { try await authenticator.begin(payload) }
            #expect(DeviceAuthenticatorError.sessionExpired.description == "The session expired; refresh the page and scan again.")
            // Aborting ends it for the page too.
            try await authenticator.abort(first)
            await #expect(throws: DeviceAuthenticatorError.sessionExpired) { try await authenticator.approve(first, pin: Self.pin) }
        }
    }

    @Test("an app the service does not allow gets 406, an outdated one 412, each as its own typed error")
    func appChecks() async throws {
        try await TestServer.withLiveServer(configure: { configuration in
            configuration.authenticator.allowedApps = ["test-authenticator", "old-app"]
            configuration.authenticator.minimumAppVersion = "1.1"
        }) { _, issuer in
            let url = issuer.appendingPathComponent("authenticator")
            let service = try await DeviceAuthenticator(app: Self.app, storage: MemoryTokenStorage()).service(at: url)
            #expect(service.description.pinLength == 4 && service.description.minimumAppVersion == "1.1")
            await #expect(throws: DeviceAuthenticatorError.appNotAllowed) {
                try await DeviceAuthenticator(app: AuthenticatorApp(name: "other-app", version: "9.0"), storage: MemoryTokenStorage()).service(at: url)
            }
            await #expect(throws: DeviceAuthenticatorError.updateRequired(minimumVersion: "1.1")) {
                try await DeviceAuthenticator(app: AuthenticatorApp(name: "old-app", version: "1.0.9"), storage: MemoryTokenStorage()).service(at: url)
            }
            #expect(DeviceAuthenticatorError.appNotAllowed.description == "This app cannot be used with this service.")
        }
    }

    @Test("an app made for one service refuses another's codes before sending anything; a second identity for the same account is refused")
    func trustedServicesAndDuplicates() async throws {
        try await TestServer.withLiveServer(configure: Self.configure) { server, issuer in
            let (client, authenticator, storage) = try await Self.prepare(server, issuer: issuer)
            let registered = try await Self.register(authenticator, server: server, issuer: issuer)
            let service = try await authenticator.service(at: issuer.appendingPathComponent("authenticator"))
            // The same account again, however its address is written: the identity it has.
            await #expect(throws: DeviceAuthenticatorError.duplicateIdentity(registered.id)) {
                _ = try await authenticator.register(at: service, email: " SAM@example.com", deviceName: "again")
            }
            #expect(try await authenticator.identities().count == 1)

            // The same storage, in an app that serves only another company: this service's codes are refused unsent.
            let elsewhere = DeviceAuthenticator(
                app: Self.app, storage: storage, trustedServices: [URL(string: "https://id.other.example/authenticator")!])
            let (payload, _) = try await Self.qrPayload(client)
            let sessionsBefore = try await server.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM app_logins WHERE identity_id IS NOT NULL").first()?.decode(column: "n", as: Int.self)
            }
            await #expect(throws: DeviceAuthenticatorError.untrustedService(issuer.host ?? "")) { _ = try await elsewhere.begin(payload) }
            await #expect(throws: DeviceAuthenticatorError.untrustedService(issuer.host ?? "")) {
                _ = try await elsewhere.service(at: issuer.appendingPathComponent("authenticator"))
            }
            let sessionsAfter = try await server.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM app_logins WHERE identity_id IS NOT NULL").first()?.decode(column: "n", as: Int.self)
            }
            #expect(sessionsBefore == sessionsAfter)
            // Listed, it is served.
            let trusting = DeviceAuthenticator(app: Self.app, storage: storage, trustedServices: [issuer.appendingPathComponent("authenticator")])
            let request = try await trusting.begin(payload)
            try await trusting.approve(request, pin: Self.pin)
        }
    }
}
