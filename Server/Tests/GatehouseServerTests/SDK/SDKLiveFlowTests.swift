import Foundation
import Gatehouse
@testable import GatehouseServer
import Testing

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
        return GatehouseClient(configuration: GatehouseConfiguration(issuer: issuer, clientID: "app", redirectURI: "com.example.app:/cb", tokenStorage: storage))
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

    @Test("single-node and identify-first login run through the same SDK code; a wrong password is an error node and a retry succeeds",
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
}
