import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The SDK's ``AccountClient`` against a live server's account API: typed reads and changes for a session with the
/// `account` scope, refusal without it, and a sensitive change after the allowed age going through the SDK's step-up.
@Suite("SDK account client against a live server")
struct SDKAccountClientTests {
    /// `sam`, and a client whose sessions carry the `account` scope (or only `openid` with `withAccountScope` false).
    static func prepare(_ server: IdentityServer, issuer: URL, withAccountScope: Bool = true) async throws -> GatehouseClient {
        let hash = try await server.hasher.hash(SDKLiveFlowTests.password)
        if try await server.users.find(username: "sam") == nil {
            try await server.users.create(username: "sam", email: "sam@example.com", name: "Sam", passwordHash: hash)
        }
        let id = withAccountScope ? "account-app" : "plain-app"
        try await server.clients.create(
            id: id, secret: nil, redirectURIs: ["com.example.app:/cb"], scopes: ClientRegistrationRules.defaultScopes + ["account"])
        return GatehouseClient(
            configuration: GatehouseConfiguration(
                issuer: issuer, clientID: id, redirectURI: "com.example.app:/cb", scopes: withAccountScope ? ["openid", "account"] : ["openid"],
                tokenStorage: MemoryTokenStorage()))
    }

    @Test("profile, names, sessions, consents, passkeys and events as typed values; a token without the scope is refused")
    func reads() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let session = try await Self.prepare(server, issuer: issuer).login(username: "sam", password: SDKLiveFlowTests.password)
            let account = AccountClient(session: session)
            let profile = try await account.profile()
            #expect(profile.username == "sam" && profile.email == "sam@example.com" && profile.hasPassword && profile.name == "Sam")
            let renamed = try await account.updateNames(givenName: "Samuel", familyName: "Example")
            #expect(renamed.givenName == "Samuel" && renamed.familyName == "Example" && renamed.name == "Sam")
            #expect(try await account.profile().givenName == "Samuel")

            let sessions = try await account.sessions()
            #expect(sessions.appSignIns.map(\.clientID) == ["account-app"] && sessions.browserSessions.isEmpty)
            #expect(try await account.consents().isEmpty, "a first-party client is never asked")
            #expect(try await account.passkeys().isEmpty)
            let events = try await account.events(limit: 5)
            #expect(events.first?.type == "account.updated" && events.first?.actor == "user:\(profile.id)")
            #expect(events.first?.details["given_name.after"] == "Samuel")
            await #expect(throws: GatehouseError.provider(status: 400, error: "invalid_request", description: "limit must be 1 to 1000.")) {
                _ = try await account.events(limit: 0)
            }

            let plain = try await Self.prepare(server, issuer: issuer, withAccountScope: false).login(
                username: "sam", password: SDKLiveFlowTests.password)
            await #expect(
                throws: GatehouseError.provider(status: 403, error: "insufficient_scope", description: "The access token was not granted the account scope.")
            ) {
                _ = try await AccountClient(session: plain).profile()
            }
        }
    }

    @Test("deleting the account after the allowed age asks for a step-up; signed in again, it goes through")
    func stepUp() async throws {
        // The server's clock jumps ahead instead of the test sleeping; a slow machine has thirty seconds, not one, from the
        // step-up's fresh sign-in to the retry. The app's clock is the real one: the jump stays inside its leeway.
        let (clock, advance) = UnixClock.ahead()
        try await TestServer.withLiveServer(clock: clock, configure: { $0.account = AccountPolicy(reauthenticateAfter: 30) }) { server, issuer in
            let session = try await Self.prepare(server, issuer: issuer).login(username: "sam", password: SDKLiveFlowTests.password)
            // Older than the thirty seconds this server allows sensitive changes after signing in.
            advance(31)
            do {
                try await AccountClient(session: session).deleteAccount()
                Issue.record("an old sign-in must not delete the account")
            } catch let error as GatehouseError {
                #expect(error.oauthError == "insufficient_user_authentication")
            }
            #expect(try await server.users.find(username: "sam") != nil)

            let asked = Asked()
            let account = AccountClient(session: session) { needed in
                await asked.record(needed)
                guard case .continue(var step) = await session.stepUp(acrValues: needed.acrValues, maxAge: needed.maxAge) else {
                    throw GatehouseError.unsupportedStep("expected the sign-in node")
                }
                step["username"] = "sam"
                step["password"] = SDKLiveFlowTests.password
                guard case .success = await step.next() else { throw GatehouseError.unsupportedStep("the step-up did not sign in") }
            }
            try await account.deleteAccount()
            #expect(await asked.requirements == [AccountStepUp(maxAge: 30, description: "This change needs a recent sign-in: sign in again, then retry.")])
            #expect(try await server.users.find(username: "sam") == nil)
            #expect(await session.isSignedOut)
        }
    }

    @Test("authenticator apps and providers listed and removed, an app's sign-in ended, the password changed")
    func changes() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            let session = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            let account = AccountClient(session: session)
            let sam = try #require(try await server.users.find(username: "sam"))
            let phone = try await server.deviceIdentities.start(
                email: sam.email, userID: sam.id, deviceName: "Sam's phone", sealedOPRFKey: "sealed", lifetime: 600)
            try await AccountPageTests.link(server, provider: "corp", to: sam.id)
            #expect(try await account.devices().map(\.deviceName) == ["Sam's phone"])
            #expect(try await account.identities().map(\.provider) == ["corp"])
            try await account.removeDevice(id: phone.id)
            try await account.unlinkIdentity(provider: "corp")
            let (devices, identities) = (try await account.devices(), try await account.identities())
            #expect(devices.isEmpty && identities.isEmpty)
            await #expect(throws: GatehouseError.provider(status: 404, error: "not_found", description: "The account has no authenticator app \(phone.id).")) {
                try await account.removeDevice(id: phone.id)
            }

            // Another app sign-in of the same person, ended from here.
            let mine = Set(try await account.sessions().appSignIns.map(\.id))
            let other = try await client.login(username: "sam", password: SDKLiveFlowTests.password)
            let theirs = try #require(try await account.sessions().appSignIns.first { !mine.contains($0.id) })
            try await account.endAppSignIn(id: theirs.id)
            await #expect(throws: GatehouseError.signedOut) { _ = try await AccountClient(session: other).profile() }
            #expect(try await account.sessions().appSignIns.map(\.id) == Array(mine))

            await #expect(throws: GatehouseError.provider(status: 400, error: "invalid_request", description: "The current password is incorrect.")) {
                try await account.changePassword(current: "not it", new: SDKMultiFactorTests.newPassword)
            }
            try await account.changePassword(current: SDKLiveFlowTests.password, new: SDKMultiFactorTests.newPassword)
            #expect(await session.isSignedOut)
            _ = try await client.login(username: "sam", password: SDKMultiFactorTests.newPassword)
        }
    }

    @Test("a new email address and phone number with the codes sent to them; a wrong code is refused and the old address told")
    func contactChanges() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let session = try await Self.prepare(server, issuer: issuer).login(username: "sam", password: SDKLiveFlowTests.password)
            let account = AccountClient(session: session)
            #expect(try await account.requestEmailChange(to: " Sam.New@Example.com ") == "sam.new@example.com")
            let code = try await SDKMultiFactorTests.latestCode(server)
            await #expect(throws: GatehouseError.provider(status: 400, error: "invalid_code", description: "The code is incorrect.")) {
                try await account.confirmEmailChange(to: "sam.new@example.com", code: code == "000000" ? "111111" : "000000")
            }
            let changed = try await account.confirmEmailChange(to: "sam.new@example.com", code: code)
            #expect(changed.email == "sam.new@example.com" && changed.emailVerified)
            let told = try await server.courier.queue.list(recipient: "sam@example.com", limit: 5).map(\.template)
            #expect(told.contains("email_changed"))

            #expect(try await account.requestPhoneChange(to: "+1 555 000 1212") == "+15550001212")
            let phone = try await account.confirmPhoneChange(to: "+15550001212", code: try await SDKMultiFactorTests.latestCode(server))
            #expect(phone.phoneNumber == "+15550001212" && phone.phoneNumberVerified)
            await #expect(throws: GatehouseError.provider(status: 400, error: "invalid_request", description: "Enter a valid email address.")) {
                try await account.requestEmailChange(to: "not an address")
            }
        }
    }

    actor Asked {
        var requirements: [AccountStepUp] = []
        func record(_ needed: AccountStepUp) { requirements.append(needed) }
    }
}
