import Foundation
import Gatehouse
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
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
        try await TestServer.withLiveServer(configure: { $0.account = AccountPolicy(reauthenticateAfter: 1) }) { server, issuer in
            let session = try await Self.prepare(server, issuer: issuer).login(username: "sam", password: SDKLiveFlowTests.password)
            // Older than the one second this server allows sensitive changes after signing in.
            try await Task.sleep(for: .milliseconds(2_100))
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
            #expect(await asked.requirements == [AccountStepUp(maxAge: 1, description: "This change needs a recent sign-in: sign in again, then retry.")])
            #expect(try await server.users.find(username: "sam") == nil)
            #expect(await session.isSignedOut)
        }
    }

    actor Asked {
        var requirements: [AccountStepUp] = []
        func record(_ needed: AccountStepUp) { requirements.append(needed) }
    }
}
