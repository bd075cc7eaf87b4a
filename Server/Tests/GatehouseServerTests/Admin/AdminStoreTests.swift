import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// What the admin API relies on, on both engines: user search by prefix (wildcards in the text are literal), updates
/// that land only on the version read, admin tokens that expire and revoke, and the rate limit.
@Suite("Admin API stores")
struct AdminStoreTests {
    @Test("search by username, email, name word or phone prefix; % and _ are literal; cursor paging; status", arguments: TestEngine.available)
    func search(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            for name in ["ada", "ada_b", "adab", "bob"] {
                _ = try await server.users.create(username: name, email: "\(name)@example.com", name: nil, passwordHash: User.noPassword)
            }
            #expect(try await server.users.search(text: "ada", locked: nil, after: nil, limit: 10).map(\.username) == ["ada", "ada_b", "adab"])
            #expect(try await server.users.search(text: "ada_", locked: nil, after: nil, limit: 10).map(\.username) == ["ada_b"])
            #expect(try await server.users.search(text: "%", locked: nil, after: nil, limit: 10).isEmpty)
            #expect(try await server.users.search(text: "BOB@EX", locked: nil, after: nil, limit: 10).map(\.username) == ["bob"])
            #expect(try await server.users.search(text: nil, locked: nil, after: "ada_b", limit: 2).map(\.username) == ["adab", "bob"])
            let bob = try #require(try await server.users.find(username: "bob"))
            var named = bob
            named.name = "Robert Tables"
            named.phoneNumber = "+491512345678"
            _ = try #require(try await server.users.update(bob, to: named))
            #expect(try await server.users.search(text: "tab", locked: nil, after: nil, limit: 10).map(\.username) == ["bob"])
            #expect(try await server.users.search(text: "Rob", locked: nil, after: nil, limit: 10).map(\.username) == ["bob"])
            #expect(try await server.users.search(text: "+49 151-23", locked: nil, after: nil, limit: 10).map(\.username) == ["bob"])
            #expect(try await server.users.search(text: "obert", locked: nil, after: nil, limit: 10).isEmpty)
            _ = try await server.users.setLocked(username: "bob", true)
            #expect(try await server.users.search(text: nil, locked: true, after: nil, limit: 10).map(\.username) == ["bob"])
        }
    }

    @Test("an update lands only on the version read; a taken email is a duplicate", arguments: TestEngine.available)
    func update(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let ada = try await server.users.create(username: "ada", email: "ada@example.com", name: nil, passwordHash: User.noPassword)
            _ = try await server.users.create(username: "bob", email: "bob@example.com", name: nil, passwordHash: User.noPassword)
            var renamed = ada
            renamed.name = "Ada L"
            let updated = try #require(try await server.users.update(ada, to: renamed))
            #expect(updated.name == "Ada L")
            var again = ada
            again.name = "Someone"
            #expect(try await server.users.update(ada, to: again) == nil, "the stale version is refused")
            var taken = updated
            taken.email = "bob@example.com"
            let duplicate = await #expect(throws: DatabaseError.self) { _ = try await server.users.update(updated, to: taken) }
            #expect(duplicate?.isDuplicate == true)
            #expect(DatabaseAdminOperations.differences(AdminUser(ada), AdminUser(updated)) == ["name.before": "", "name.after": "Ada L"])
        }
    }

    @Test("admin tokens verify until they expire or are revoked", arguments: TestEngine.available)
    func adminTokens(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let (token, record) = try await server.adminTokens.create(name: "ci", readOnly: true, lifetime: 3600)
            #expect(try await server.adminTokens.verify(token)?.id == record.id)
            #expect(try await server.adminTokens.verify(token + "x") == nil)
            #expect(try await server.adminTokens.verify("gha_guess") == nil)
            advance(3601)
            #expect(try await server.adminTokens.verify(token) == nil)
            let (other, otherRecord) = try await server.adminTokens.create(name: "ops", readOnly: false, lifetime: 3600)
            #expect(try await server.adminTokens.revoke(id: otherRecord.id))
            #expect(try await server.adminTokens.verify(other) == nil)
            let revokedTwice = try await server.adminTokens.revoke(id: otherRecord.id)
            #expect(!revokedTwice)
        }
    }

    @Test("the rate limit refuses the request past the limit within a minute, and the next minute starts again")
    func rateLimit() async throws {
        let (clock, advance) = UnixClock.manual()
        let limiter = AdminRateLimiter(limit: 3, clock: clock)
        for _ in 0..<3 { try await limiter.admit("client:ops") }
        await #expect(throws: AdminProblem.self) { try await limiter.admit("client:ops") }
        try await limiter.admit("client:other")
        advance(60)
        try await limiter.admit("client:ops")
    }
}
