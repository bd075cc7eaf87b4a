import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Password sign-in")
struct PasswordAuthenticatorTests {
    @Test("a hash made with old parameters is upgraded at the next successful sign-in", arguments: TestEngine.available)
    func rehashOnSignIn(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let old = PasswordHasher(parameters: .init(logN: 11, blockSize: 8, parallelism: 1), maxConcurrentHashes: 1)
            let oldHash = try await old.hash("correct horse battery staple")
            try await old.shutdown()
            try await server.users.create(username: "zoe", email: "zoe@example.com", name: nil, passwordHash: oldHash)

            #expect(try await server.authenticator.authenticate(username: "zoe", password: "wrong password") == .invalidCredentials)
            #expect(try await server.users.find(username: "zoe")?.passwordHash == oldHash)  // no upgrade on failure

            guard case .authenticated = try await server.authenticator.authenticate(username: "Zoe", password: "correct horse battery staple") else {
                Issue.record("sign-in failed")
                return
            }
            let upgraded = try #require(try await server.users.find(username: "zoe")?.passwordHash)
            #expect(upgraded != oldHash)
            #expect(upgraded.hasPrefix("$scrypt$ln=10,"))
            #expect(!server.hasher.needsRehash(upgraded))
        }
    }

    @Test("unknown users, locked users and throttling give the right outcome", arguments: TestEngine.available)
    func outcomes(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.throttling.maxFailures = 3 }) { server in
            let hash = try await server.hasher.hash("a fine password")
            try await server.users.create(username: "yan", email: "yan@example.com", name: nil, passwordHash: hash)
            #expect(try await server.authenticator.authenticate(username: "nobody", password: "a fine password") == .invalidCredentials)
            #expect(try await server.authenticator.authenticate(username: "", password: "x") == .invalidCredentials)
            _ = try await server.users.setLocked(username: "yan", true)
            #expect(try await server.authenticator.authenticate(username: "yan", password: "wrong") == .invalidCredentials)
            #expect(try await server.authenticator.authenticate(username: "yan", password: "a fine password") == .locked)
            _ = try await server.users.setLocked(username: "yan", false)
            for _ in 0..<3 { _ = try await server.authenticator.authenticate(username: "yan", password: "wrong") }
            #expect(try await server.authenticator.authenticate(username: "yan", password: "a fine password") == .throttled)
        }
    }
}
