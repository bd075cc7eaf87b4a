import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The account page's passkey and linked-identity forms over HTTP on a live server, driven by the browser stand-in:
/// rename and remove a passkey, unlink another provider, and never remove the last way to sign in.
@Suite("Account page: passkeys and other providers")
struct AccountPageTests {
    static let password = "a fine password"

    /// Links an identity at `provider` to `userID`, as a sign-in through that provider would have.
    static func link(_ server: IdentityServer, provider: String, to userID: String) async throws {
        let now = server.clock.now()
        try await server.database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO federated_identities (provider, subject, user_id, email, created_at, last_used_at)
                VALUES (\(bind: provider), \(bind: "subject-" + userID), \(bind: userID), NULL, \(bind: now), \(bind: now))
                """
            ).run()
        }
    }

    /// Opens the account page in `browser`, which is sent to sign in (as the stand-in's user) and comes back.
    static func signIn(_ browser: BrowserStandIn, at page: URL) async throws {
        let (_, signIn, _) = try await browser.send(page)
        let location = try #require(signIn)
        let login = try #require(URL(string: location, relativeTo: page)?.absoluteURL)
        #expect(login.path == "/login")
        _ = try await browser.follow(login) { $0.path == "/account" }
    }

    /// The account page's form token, from the page.
    static func token(in page: String) throws -> String {
        try #require(page.firstMatch(of: /name="csrf_token" value="([^"]+)"/)).1.description
    }

    @Test("a passkey is renamed and removed, another provider unlinked; each recorded with the person as the actor", arguments: TestEngine.available)
    func passkeysAndProviders(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine) { server, issuer in
            let kim = try await server.users.create(
                username: "kim", email: "kim@example.com", name: nil, passwordHash: try await server.hasher.hash(Self.password))
            let laptop = try await server.passkeys.add(
                userID: kim.id, registration: try PasskeyStoreTests.registration(.packedES256), name: "Laptop", transports: [])
            try await Self.link(server, provider: "corp", to: kim.id)
            let browser = BrowserStandIn(username: "kim", password: Self.password)
            defer { browser.shutdown() }
            let page = issuer.appendingPathComponent("account")
            // Not signed in: the page sends the browser to sign in, which comes back to it.
            try await Self.signIn(browser, at: page)
            let (status, _, body) = try await browser.send(page)
            #expect(status == 200 && body.contains("<h3>Laptop</h3>") && body.contains("Unlink corp"), "\(status) \(body.prefix(300))")
            let token = try Self.token(in: body)

            let renamed = try await browser.send(
                page, form: [("csrf_token", token), ("change", "rename_passkey"), ("passkey", laptop.id), ("name", "Work laptop")])
            #expect(renamed.0 == 303 && renamed.1 == "/account?done=passkey_renamed")
            #expect(try await server.passkeys.list(userID: kim.id).map(\.name) == ["Work laptop"])
            let removed = try await browser.send(page, form: [("csrf_token", token), ("change", "remove_passkey"), ("passkey", laptop.id)])
            #expect(removed.0 == 303 && removed.1 == "/account?done=passkey_removed")
            #expect(try await server.passkeys.list(userID: kim.id).isEmpty)
            let unlinked = try await browser.send(page, form: [("csrf_token", token), ("change", "unlink_identity"), ("provider", "corp")])
            #expect(unlinked.0 == 303 && unlinked.1 == "/account?done=identity_unlinked")
            #expect(try await server.federatedIdentities.identities(of: kim.id).isEmpty)

            let events = try await server.audit.recent(of: kim.id, limit: 10)
            let removal = try #require(events.first { $0.type == .factorRemoved })
            #expect(removal.actor == "user:\(kim.id)" && removal.details["passkey"] == laptop.id)
            #expect(events.contains { $0.type == .identityUnlinked && $0.actor == "user:\(kim.id)" })
            // A passkey or provider named twice (another tab) is said to be gone, not an error page.
            let again = try await browser.send(page, form: [("csrf_token", token), ("change", "remove_passkey"), ("passkey", laptop.id)])
            #expect(again.0 == 303 && again.1 == "/account?problem=gone")
        }
    }

    @Test("without a password, the last passkey and the last provider stay")
    func lastWayIn() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let ada = try await server.users.create(username: "ada", email: "ada@example.com", name: nil, passwordHash: User.noPassword)
            let only = try await server.passkeys.add(
                userID: ada.id, registration: try PasskeyStoreTests.registration(.packedES256), name: "Phone", transports: [])
            let bob = try await server.users.create(username: "bob", email: "bob@example.com", name: nil, passwordHash: User.noPassword)
            try await Self.link(server, provider: "corp", to: bob.id)
            let page = issuer.appendingPathComponent("account")

            for (user, form) in [(ada, [("change", "remove_passkey"), ("passkey", only.id)]), (bob, [("change", "unlink_identity"), ("provider", "corp")])] {
                // Signed in another way (a passkey, the provider): a session of its own.
                let started = try await server.sessions.start(userID: user.id, methods: ["hwk"], lifetime: 600, replacing: nil)
                let browser = BrowserStandIn(username: user.username, password: "")
                defer { browser.shutdown() }
                browser.setCookie("gatehouse_session", started.id, host: "127.0.0.1")
                let (status, _, body) = try await browser.send(page)
                #expect(status == 200, "\(user.username)'s page")
                let refused = try await browser.send(page, form: [("csrf_token", try Self.token(in: body))] + form)
                #expect(refused.0 == 409 && refused.2.contains("only way to sign in"), "\(user.username): \(refused.0)")
            }
            #expect(try await server.passkeys.list(userID: ada.id).count == 1)
            #expect(try await server.federatedIdentities.identities(of: bob.id).count == 1)
        }
    }

    @Test("the page lists the authenticator apps and removes the person's own only; sessions say where they signed in from")
    func devicesAndSessionOrigins() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let kim = try await server.users.create(
                username: "kim", email: "kim@example.com", name: nil, passwordHash: try await server.hasher.hash(Self.password))
            let lee = try await server.users.create(username: "lee", email: "lee@example.com", name: nil, passwordHash: User.noPassword)
            let phone = try await server.deviceIdentities.start(
                email: kim.email, userID: kim.id, deviceName: "Kim's phone", sealedOPRFKey: "sealed", lifetime: 600)
            let other = try await server.deviceIdentities.start(
                email: lee.email, userID: lee.id, deviceName: "Lee's phone", sealedOPRFKey: "sealed", lifetime: 600)
            let browser = BrowserStandIn(username: "kim", password: Self.password)
            defer { browser.shutdown() }
            let page = issuer.appendingPathComponent("account")
            try await Self.signIn(browser, at: page)
            let (_, _, body) = try await browser.send(page)
            #expect(body.contains("Remove Kim&#39;s phone") && !body.contains("Lee"))
            #expect(body.contains("from 127.0.0.1"), "the session's address is shown")
            let sessions = try await server.operations(origin: "test")("test").browserSessions(of: kim.id)
            #expect(sessions.map(\.address) == ["127.0.0.1"])
            let token = try Self.token(in: body)

            let foreign = try await browser.send(page, form: [("csrf_token", token), ("change", "remove_device"), ("device", other.id)])
            #expect(foreign.0 == 303 && foreign.1 == "/account?problem=gone")
            #expect(try await server.deviceIdentities.find(id: other.id) != nil, "another person's device stays")
            let removed = try await browser.send(page, form: [("csrf_token", token), ("change", "remove_device"), ("device", phone.id)])
            #expect(removed.0 == 303 && removed.1 == "/account?done=device_removed")
            #expect(try await server.deviceIdentities.list(userID: kim.id).isEmpty)
        }
    }
}
