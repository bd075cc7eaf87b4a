import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Revoked token families")
struct GrantRevocationTests {
    private func makeGrant(_ server: IdentityServer, username: String = "ann") async throws -> Grant {
        let user = try await server.users.create(username: username, email: "\(username)@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
        return Grant(
            id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: ["openid", "offline_access"],
            authTime: server.clock.now(), methods: ["pwd"])
    }

    private func rotate(_ token: String, _ server: IdentityServer) async throws -> TokenStore.IssuedTokens {
        guard
            case .rotated(_, let tokens, _) = try await server.tokens.refresh(
                token, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens)
        else {
            throw RotationFailed()
        }
        return tokens
    }

    private struct RotationFailed: Error {}

    /// A family that has rotated once: its first tokens, and the second ones issued for the first refresh token.
    private func rotatedFamily(_ server: IdentityServer) async throws -> (grant: Grant, first: TokenStore.IssuedTokens, second: TokenStore.IssuedTokens) {
        let grant = try await makeGrant(server)
        let first = try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: server.configuration.tokens)
        return (grant, first, try await rotate(try #require(first.refreshToken), server))
    }

    /// The revocation record of `grantID`: how long it is kept past `now`, or `nil` without one.
    private func retention(of grantID: String, at now: Int64, _ server: IdentityServer) async throws -> Int64? {
        try await server.database.read { sql in
            try await sql.raw("SELECT expires_at FROM revoked_grants WHERE grant_id = \(bind: grantID)").first()
        }.map { try $0.decode(column: "expires_at", as: Int64.self) - now }
    }

    @Test("revoking the newest refresh token ends every access token of its family, and no other family's", arguments: TestEngine.available)
    func revokingTheNewest(engine: TestEngine) async throws {
        let now: Int64 = 1_900_000_000
        try await TestServer.withServer(engine: engine, clock: UnixClock { now }) { server in
            let (grant, first, second) = try await rotatedFamily(server)
            let other = try await server.tokens.issue(
                for: try await makeGrant(server, username: "bob"), withRefreshToken: true, lifetimes: server.configuration.tokens)

            try await server.tokens.revoke(try #require(second.refreshToken), clientID: "web")

            #expect(try await server.tokens.activeAccessToken(first.accessToken) == nil, "an older access token of the family")
            #expect(try await server.tokens.activeAccessToken(second.accessToken) == nil)
            #expect(try await server.tokens.activeRefreshToken(try #require(second.refreshToken)) == nil)
            await #expect(throws: RotationFailed.self) { try await rotate(try #require(second.refreshToken), server) }
            #expect(
                try await retention(of: grant.id, at: now, server) == TokenLifetimes.maximumAccessToken,
                "only access tokens can outlive it, and none for longer than a day")
            #expect(try await server.tokens.activeAccessToken(other.accessToken) != nil)
            #expect(try await server.tokens.activeRefreshToken(try #require(other.refreshToken)) != nil)
        }
    }

    @Test("a replayed refresh token revokes its family for as long as a refresh token may live, extending a shorter record", arguments: TestEngine.available)
    func replayOutlivesEveryToken(engine: TestEngine) async throws {
        let now: Int64 = 1_900_000_000
        try await TestServer.withServer(engine: engine, clock: UnixClock { now }) { server in
            let (grant, first, second) = try await rotatedFamily(server)
            let firstRefresh = try #require(first.refreshToken)
            // Revoking the newest token first leaves a one-day record; the replay must lengthen it.
            try await server.tokens.revoke(try #require(second.refreshToken), clientID: "web")
            let replay = try await server.tokens.refresh(firstRefresh, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens)
            #expect({ if case .replayed = replay { true } else { false } }())
            #expect(try await retention(of: grant.id, at: now, server) == TokenLifetimes.maximumRefreshToken)
            // Revoking the old token again (RFC 7009) must not shorten it.
            try await server.tokens.revoke(firstRefresh, clientID: "web")
            #expect(try await retention(of: grant.id, at: now, server) == TokenLifetimes.maximumRefreshToken)
        }
    }

    @Test(
        "a rotation whose answer was lost: the same token again within the grace gets the same successor and keeps the family",
        arguments: TestEngine.available, [false, true])
    func retriedRotation(engine: TestEngine, inOneStatement: Bool) async throws {
        let now = NIOLockedValueBox<Int64>(1_900_000_000)
        try await TestServer.withServer(engine: engine, clock: UnixClock { now.withLockedValue { $0 } }) { server in
            let lifetimes = server.configuration.tokens
            #expect(lifetimes.refreshReuseGrace == 30)
            let grant = try await makeGrant(server)
            let first = try #require(try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: lifetimes).refreshToken)
            // The rotation commits; its answer never reaches the client (PostgreSQL's one statement, or step by step).
            let lost: TokenStore.IssuedTokens
            if inOneStatement, engine == .postgres {
                let rotated = try await server.database.autocommit { sql in
                    try await server.tokens.rotateInOneStatement(first, clientID: "web", lifetimes: lifetimes, minted: .init(withRefreshToken: true), in: sql)
                }
                guard case .rotated(_, let tokens, _) = rotated else { throw RotationFailed() }
                lost = tokens
            } else {
                lost = try await rotate(first, server)
            }
            now.withLockedValue { $0 += 20 }
            // The client retries with the token it still holds: the same successor, a new access token, nothing revoked.
            let retried = try await rotate(first, server)
            #expect(retried.refreshToken == lost.refreshToken && retried.accessToken != lost.accessToken)
            #expect(try await server.tokens.activeAccessToken(retried.accessToken) != nil)
            #expect(try await retention(of: grant.id, at: now.withLockedValue { $0 }, server) == nil)
            // Asking for other scopes than the successor has is refused, and revokes nothing either.
            let narrowed = try await server.tokens.refresh(first, clientID: "web", narrowedScopes: ["openid"], lifetimes: lifetimes)
            #expect({ if case .invalid = narrowed { true } else { false } }())
            // Another client presenting it learns nothing and changes nothing.
            let foreign = try await server.tokens.refresh(first, clientID: "other", narrowedScopes: nil, lifetimes: lifetimes)
            #expect({ if case .invalid = foreign { true } else { false } }())
            // The client uses the successor: from then on the old token is a replay, and revokes the family.
            let third = try await rotate(try #require(retried.refreshToken), server)
            let replay = try await server.tokens.refresh(first, clientID: "web", narrowedScopes: nil, lifetimes: lifetimes)
            #expect({ if case .replayed = replay { true } else { false } }())
            #expect(try await server.tokens.activeRefreshToken(try #require(third.refreshToken)) == nil)
        }
    }

    @Test("past the grace, or with the grace off, a used token presented again is a replay", arguments: TestEngine.available)
    func retryAfterTheGrace(engine: TestEngine) async throws {
        let now = NIOLockedValueBox<Int64>(1_900_000_000)
        try await TestServer.withServer(engine: engine, clock: UnixClock { now.withLockedValue { $0 } }) { server in
            var lifetimes = server.configuration.tokens
            for grace in [Int64(30), 0] {
                lifetimes.refreshReuseGrace = grace
                let grant = try await makeGrant(server, username: "grace\(grace)")
                let first = try #require(try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: lifetimes).refreshToken)
                guard case .rotated(_, let lost, _) = try await server.tokens.refresh(first, clientID: "web", narrowedScopes: nil, lifetimes: lifetimes)
                else { throw RotationFailed() }
                now.withLockedValue { $0 += grace == 0 ? 1 : grace + 1 }
                let late = try await server.tokens.refresh(first, clientID: "web", narrowedScopes: nil, lifetimes: lifetimes)
                #expect({ if case .replayed = late { true } else { false } }(), "grace \(grace)")
                #expect(try await server.tokens.activeRefreshToken(try #require(lost.refreshToken)) == nil, "grace \(grace)")
            }
        }
    }

    @Test("a replayed authorization code revokes the tokens issued from it", arguments: TestEngine.available)
    func codeReplay(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let grant = try await makeGrant(server)
            let code = try await server.codes.issue(
                for: grant, binding: .init(redirectURI: "http://127.0.0.1/cb", nonce: nil, codeChallenge: nil),
                lifetime: 60)
            guard case .redeemed(let redeemed, _) = try await server.codes.redeem(code, clientID: "web") else {
                Issue.record("the code was not redeemed")
                return
            }
            let tokens = try await server.tokens.issue(for: redeemed, withRefreshToken: true, lifetimes: server.configuration.tokens)
            let next = try await rotate(try #require(tokens.refreshToken), server)
            #expect(try await server.tokens.activeAccessToken(next.accessToken) != nil)
            let replay = try await server.codes.redeem(code, clientID: "web")
            #expect({ if case .replayed = replay { true } else { false } }())
            #expect(try await server.tokens.activeAccessToken(tokens.accessToken) == nil)
            #expect(try await server.tokens.activeAccessToken(next.accessToken) == nil)
            #expect(try await server.tokens.activeRefreshToken(try #require(next.refreshToken)) == nil)
        }
    }

    @Test("a revocation is forgotten once no token of its family can still be valid", arguments: TestEngine.available)
    func expiredRecordsAreSwept(engine: TestEngine) async throws {
        let now = NIOLockedValueBox<Int64>(1_900_000_000)
        try await TestServer.withServer(engine: engine, clock: UnixClock { now.withLockedValue { $0 } }) { server in
            let first = try await server.tokens.issue(for: try await makeGrant(server), withRefreshToken: true, lifetimes: server.configuration.tokens)
            try await server.tokens.revoke(try #require(first.refreshToken), clientID: "web")
            now.withLockedValue { $0 += TokenLifetimes.maximumAccessToken }
            let later = try await makeGrant(server, username: "bob")
            let second = try await server.tokens.issue(for: later, withRefreshToken: true, lifetimes: server.configuration.tokens)
            try await server.tokens.revoke(try #require(second.refreshToken), clientID: "web")
            // The housekeeping sweep forgets it.
            let swept = try await ExpiredRowSweep(database: server.database, clock: server.clock, configuration: server.configuration).run()
            #expect(swept.deleted["revoked_grants"] == 1)
            let kept = try await server.database.read { sql in
                try await sql.raw("SELECT grant_id FROM revoked_grants").all().map { try $0.decode(column: "grant_id", as: String.self) }
            }
            #expect(kept == [later.id])
        }
    }

    @Test("migrating holds existing tokens to the new maximum lifetimes and drops the indexes by grant")
    func migrationCapsLifetimes() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await SQLiteStoreDatabase.open(path: folder.appendingPathComponent("old.sqlite").path, logger: TestServer.logger)
        try await SchemaMigrator(database: database, logger: TestServer.logger, migrations: SchemaMigrations.all.filter { $0.version < 10 }).migrate()
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO users (id, username, email, password_hash, created_at, updated_at) VALUES ('u1', 'ann', 'ann@example.com', 'x', 0, 0)
                """
            ).run()
            for (hash, lifetime) in [("long", 10 * 86_400), ("short", 600)] {
                try await sql.raw(
                    """
                    INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at)
                    VALUES (\(bind: hash), 'g1', 'web', 'u1', 'openid', 1000, \(bind: 1000 + lifetime))
                    """
                ).run()
            }
            try await sql.raw(
                """
                INSERT INTO refresh_tokens (token_hash, grant_id, client_id, user_id, scope, auth_time, amr, created_at, expires_at)
                VALUES ('long', 'g1', 'web', 'u1', 'openid', 1000, 'pwd', 1000, \(bind: 1000 + 5 * 366 * 86_400))
                """
            ).run()
        }
        try await SchemaMigrator(database: database, logger: TestServer.logger).migrate()
        let (access, refresh, indexes) = try await database.read { sql in
            let access = try await sql.raw("SELECT token_hash, expires_at FROM access_tokens ORDER BY token_hash").all()
                .map { "\(try $0.decode(column: "token_hash", as: String.self))=\(try $0.decode(column: "expires_at", as: Int64.self))" }
            let refresh = try await sql.raw("SELECT expires_at FROM refresh_tokens").all().map { try $0.decode(column: "expires_at", as: Int64.self) }
            let indexes = try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('access_tokens', 'refresh_tokens')").all()
                .map { try $0.decode(column: "name", as: String.self) }
            return (access, refresh, indexes)
        }
        #expect(access == ["long=\(1000 + 86_400)", "short=1600"])
        #expect(refresh == [1000 + 366 * 86_400])
        #expect(
            Set(indexes) == [
                "sqlite_autoindex_access_tokens_1", "sqlite_autoindex_refresh_tokens_1", "access_tokens_expiry", "refresh_tokens_expiry",
                "access_tokens_audience",
            ],
            "the primary keys, the expiry sweeps' indexes and the resources' (added later) remain")
        try await database.close()
    }
}
