import Foundation
import Gatehouse
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The SDK driving real flows on a server listening on loopback: the same app code whatever steps the
/// server's configuration chooses.
@Suite("SDK flows against a live server")
struct SDKLiveFlowTests {
    static let password = "a fine password"

    /// A user `sam`, a public client `app`, and an SDK client for it with tokens in `storage`.
    static func prepare(_ server: IdentityServer, issuer: URL, storage: any TokenStorage = MemoryTokenStorage()) async throws -> GatehouseClient {
        let hash = try await server.hasher.hash(password)
        try await server.users.create(username: "sam", email: "sam@example.com", name: "Sam", passwordHash: hash)
        try await server.clients.create(id: "app", secret: nil, redirectURIs: ["com.example.app:/cb"], scopes: ClientRegistrationRules.defaultScopes)
        return GatehouseClient(
            configuration: GatehouseConfiguration(issuer: issuer, clientID: "app", redirectURI: "com.example.app:/cb", tokenStorage: storage))
    }

    /// What an app's sign-in screen does: fill whatever the node asks for, submit, follow the answer.
    static func signIn(_ client: GatehouseClient, password: String, retryPassword: String? = nil) async -> (Node, visited: [String], errors: [GatehouseError]) {
        var node = await client.start()
        var visited: [String] = []
        var errors: [GatehouseError] = []
        var typed = password
        for _ in 0..<6 {
            switch node {
            case .continue(var step):
                visited.append(step.id)
                for collector in step.collectors {
                    if case .text(let text) = collector { step[text.key] = "sam" }
                    if case .password(let secret) = collector { step[secret.key] = typed }
                }
                node = await step.next()
            case .error(let error):
                errors.append(error.error)
                guard let retryPassword else { return (node, visited, errors) }
                typed = retryPassword
                node = .continue(error.retry)
            case .failure, .success:
                return (node, visited, errors)
            }
        }
        return (node, visited, errors)
    }

    @Test(
        "single-node and identify-first login run through the same SDK code; a wrong password is an error node and a retry succeeds",
        arguments: [LoginSteps.singleNode, .identifyFirst])
    func sameCodeBothShapes(steps: LoginSteps) async throws {
        try await TestServer.withLiveServer(configure: { $0.loginSteps = steps }) { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            let (node, visited, errors) = await Self.signIn(client, password: "not it", retryPassword: Self.password)
            guard case .success(let success) = node else { Issue.record("expected success, got \(node)"); return }
            #expect(errors == [.invalidCredentials])
            let expected = steps == .singleNode ? ["login.credentials", "login.credentials"] : ["login.identify", "login.password", "login.password"]
            #expect(visited == expected)
            #expect(success.claims.preferredUsername == "sam" && success.claims.authenticationMethods == ["pwd"])
            let info = try await success.user.userinfo()
            #expect(info.email == "sam@example.com")
            // The one-call helper does the same.
            let user = try await client.login(username: "sam", password: Self.password)
            #expect(await user.claims?.subject == success.claims.subject)
            await #expect(throws: GatehouseError.invalidCredentials) { try await client.login(username: "sam", password: "wrong") }
        }
    }

    @Test("a flow that expired while the user was typing ends in a failure node")
    func expiredFlow() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withLiveServer(clock: clock) { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            guard case .continue(var step) = await client.start() else { Issue.record("expected a node"); return }
            advance(server.configuration.tokens.authorizationRequest + 1)
            step["username"] = "sam"
            step["password"] = Self.password
            guard case .failure(let failure) = await step.next() else { Issue.record("expected a failure node"); return }
            #expect(failure.cause == .flowExpired && failure.cause.requiresSignIn)
        }
    }

    @Test("a session stored by one client survives a restart; logout revokes it at the server", arguments: TestEngine.available)
    func storedSessionAndLogout(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine) { server, issuer in
            let folder = try TestServer.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let storage = EncryptedFileTokenStorage(directory: folder.appendingPathComponent("tokens"))
            let first = try await Self.prepare(server, issuer: issuer, storage: storage)
            let user = try await first.login(username: "sam", password: Self.password)
            let tokens = try #require(await user.currentTokens)

            // A new client object over the same storage, as after relaunching the app.
            let relaunched = GatehouseClient(configuration: first.configuration)
            let restored = try #require(try await relaunched.currentUser())
            #expect(await restored.currentTokens == tokens)
            #expect(await restored.claims?.preferredUsername == "sam")
            let refreshed = try await restored.refresh()
            #expect(refreshed.accessToken != tokens.accessToken)
            #expect(try await server.tokens.activeAccessToken(refreshed.accessToken) != nil)

            try await restored.logout()
            #expect(await restored.isSignedOut)
            #expect(try await relaunched.currentUser() == nil)
            // Revoked at the server, not only forgotten here.
            #expect(try await server.tokens.activeAccessToken(refreshed.accessToken) == nil)
            #expect(try await server.tokens.activeRefreshToken(try #require(refreshed.refreshToken)) == nil)
            await #expect(throws: GatehouseError.signedOut) { try await restored.accessToken() }
        }
    }

    @Test("an app that signed in to the account before keeps its device token after signing out and passes the name's block with it")
    func deviceTokenPassesTheNamesBlock() async throws {
        try await TestServer.withLiveServer(configure: { $0.throttling.maxFailures = 3 }) { server, issuer in
            let storage = MemoryTokenStorage()
            let app = try await Self.prepare(server, issuer: issuer, storage: storage)
            let user = try await app.login(username: "sam", password: Self.password)
            try await user.logout()
            // Kept beside the tokens, under the storage account the SDK documents for them.
            let account = "\(issuer.absoluteString)#app#device-tokens"
            let kept = try JSONDecoder().decode([String].self, from: Data(try #require(try await storage.read(account: account))))
            let sam = try #require(try await server.users.find(username: "sam"))
            #expect(kept.count == 1 && server.deviceCookies.verify(kept[0])?.userID == sam.id)

            // Someone else blocks the name with wrong passwords: an app that never signed in is refused the right one…
            for _ in 0..<3 { _ = try await server.authenticator.authenticate(username: "sam", password: "wrong") }
            let stranger = GatehouseClient(
                configuration: GatehouseConfiguration(
                    issuer: issuer, clientID: "app", redirectURI: "com.example.app:/cb",
                    tokenStorage: MemoryTokenStorage()))
            await #expect(throws: GatehouseError.throttled) { try await stranger.login(username: "sam", password: Self.password) }
            // …while this app, which presents its token, signs in; the server had no reason to hand it another.
            let again = try await app.login(username: "sam", password: Self.password)
            #expect(await again.claims?.preferredUsername == "sam")
            let after = try JSONDecoder().decode([String].self, from: Data(try #require(try await storage.read(account: account))))
            #expect(after == kept)
        }
    }

    @Test("a node submitted twice at once continues once; the other answer is a typed error whose retry is where the flow is now")
    func doubleTap() async throws {
        try await TestServer.withLiveServer(configure: { $0.signOn = SignOnPolicy(secondFactor: .required) }) { server, issuer in
            let client = try await Self.prepare(server, issuer: issuer)
            guard case .continue(var step) = await client.start() else { Issue.record("expected a node"); return }
            step["username"] = "sam"
            step["password"] = Self.password
            let tapped = step
            async let first = tapped.next()
            async let second = tapped.next()
            let answers = await [first, second]
            let continued = answers.compactMap { node -> ContinueNode? in if case .continue(let next) = node { next } else { nil } }
            let errors = answers.compactMap { node -> ErrorNode? in if case .error(let error) = node { error } else { nil } }
            #expect(continued.count == 1 && errors.count == 1)
            #expect(continued.first?.id == "mfa.enroll.totp" && errors.first?.retry.id == "mfa.enroll.totp")
            // Read before the winner wrote: already answered; read after it: the enrollment node wants its code.
            if case .alreadyAnswered = errors.first?.error {
            } else if case .invalidInput = errors.first?.error {
            } else {
                Issue.record("unexpected error \(String(describing: errors.first?.error))")
            }
        }
    }
}
