import Foundation
@testable import GatehouseServer
import SQLKit
import Testing

@Suite("Single use, enforced by the database")
struct SingleUseTests {
    private func makeUserAndGrant(_ server: IdentityServer) async throws -> Grant {
        let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
        return Grant(id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: ["openid", "offline_access"],
                     authTime: server.clock.now(), methods: ["pwd"])
    }

    @Test("of twenty concurrent redemptions of one code exactly one succeeds")
    func concurrentCodeRedemption() async throws {
        try await TestServer.withServer { server in
            let grant = try await makeUserAndGrant(server)
            let code = try await server.codes.issue(for: grant, binding: .init(redirectURI: "https://a.example/cb"), lifetime: 60)
            let outcomes = try await withThrowingTaskGroup(of: AuthorizationCodeStore.Redemption.self) { group in
                for _ in 0..<20 { group.addTask { try await server.codes.redeem(code, clientID: "web") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .redeemed = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { $0 == .replayed }.count == 19)
        }
    }

    @Test("a code is bound to its client and expires")
    func bindingAndExpiry() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(clock: clock) { server in
            let grant = try await makeUserAndGrant(server)
            let stolen = try await server.codes.issue(for: grant, binding: .init(redirectURI: "https://a.example/cb"), lifetime: 60)
            #expect(try await server.codes.redeem(stolen, clientID: "other") == .invalid)
            let late = try await server.codes.issue(for: grant, binding: .init(redirectURI: "https://a.example/cb"), lifetime: 60)
            advance(61)
            #expect(try await server.codes.redeem(late, clientID: "web") == .invalid)
            #expect(try await server.codes.redeem("never-issued", clientID: "web") == .invalid)
        }
    }

    @Test("of concurrent refreshes with one token exactly one rotates, and the replay revokes the family")
    func concurrentRefresh() async throws {
        try await TestServer.withServer { server in
            let grant = try await makeUserAndGrant(server)
            let first = try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: server.configuration.tokens)
            let refreshToken = try #require(first.refreshToken)
            let outcomes = try await withThrowingTaskGroup(of: TokenStore.IssuedTokens?.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        if case .rotated(_, let tokens) = try await server.tokens.refresh(refreshToken, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens) {
                            return tokens
                        }
                        return nil
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = outcomes.compactMap { $0 }
            #expect(winners.count == 1)
            // The replays revoked the whole family, the winner's new tokens included.
            #expect(try await server.tokens.activeAccessToken(winners[0].accessToken) == nil)
            #expect(try await server.tokens.activeRefreshToken(try #require(winners[0].refreshToken)) == nil)
            #expect(try await server.tokens.activeAccessToken(first.accessToken) == nil)
        }
    }

    @Test("concurrent failed sign-ins are all counted")
    func throttleCountsConcurrentFailures() async throws {
        try await TestServer.withServer { server in
            var policy = LoginThrottling()
            policy.maxFailures = 8
            let throttle = LoginThrottle(database: server.database, clock: server.clock, policy: policy)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<7 { group.addTask { try await throttle.recordFailure("Mallory") } }
                try await group.waitForAll()
            }
            #expect(try await !throttle.isBlocked("mallory"))
            try await throttle.recordFailure("MALLORY")
            #expect(try await throttle.isBlocked("mallory"))
            #expect(try await !throttle.isBlocked("someone-else"))
        }
    }

    @Test("migrations run once and reopening is harmless")
    func migrationsAreIdempotent() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        for _ in 0..<2 {
            let database = try await DatabaseOpener.open(path, logger: TestServer.logger)
            let versions = try await SchemaMigrator(database: database, logger: TestServer.logger).appliedVersions()
            #expect(versions == Set(SchemaMigrations.all.map(\.version)))
            try await database.close()
        }
    }

    @Test("a failed transaction leaves nothing behind")
    func rollback() async throws {
        try await TestServer.withServer { server in
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await server.database.transaction { sql in
                    try await sql.raw("INSERT INTO login_throttle (subject_hash, failures, window_started_at, blocked_until) VALUES ('x', 1, 0, 0)").run()
                    throw Boom()
                }
            }
            let rows = try await server.database.read { sql in try await sql.raw("SELECT * FROM login_throttle").all() }
            #expect(rows.isEmpty)
        }
    }
}
