import Foundation
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Single use, enforced by the database")
struct SingleUseTests {
    private func makeUserAndGrant(_ server: IdentityServer) async throws -> Grant {
        let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
        return Grant(
            id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: ["openid", "offline_access"],
            authTime: server.clock.now(), methods: ["pwd"])
    }

    @Test("of twenty concurrent redemptions of one code exactly one succeeds", arguments: TestEngine.available)
    func concurrentCodeRedemption(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
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

    @Test("a code is bound to its client and expires", arguments: TestEngine.available)
    func bindingAndExpiry(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let grant = try await makeUserAndGrant(server)
            let stolen = try await server.codes.issue(for: grant, binding: .init(redirectURI: "https://a.example/cb"), lifetime: 60)
            #expect(try await server.codes.redeem(stolen, clientID: "other") == .invalid)
            let late = try await server.codes.issue(for: grant, binding: .init(redirectURI: "https://a.example/cb"), lifetime: 60)
            advance(61)
            #expect(try await server.codes.redeem(late, clientID: "web") == .invalid)
            #expect(try await server.codes.redeem("never-issued", clientID: "web") == .invalid)
        }
    }

    /// Ten refreshes with one token at once, with `lifetimes`; the tokens each got, `nil` for a refusal.
    private func concurrentRefreshes(_ token: String, _ server: IdentityServer, lifetimes: TokenLifetimes) async throws -> [TokenStore.IssuedTokens?] {
        try await withThrowingTaskGroup(of: TokenStore.IssuedTokens?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    if case .rotated(_, let tokens, _) = try await server.tokens.refresh(token, clientID: "web", narrowedScopes: nil, lifetimes: lifetimes) {
                        return tokens
                    }
                    return nil
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(
        "of concurrent refreshes with one token exactly one rotates, and without a reuse grace the replay revokes the family", arguments: TestEngine.available)
    func concurrentRefresh(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            var lifetimes = server.configuration.tokens
            lifetimes.refreshReuseGrace = 0
            let grant = try await makeUserAndGrant(server)
            let first = try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: lifetimes)
            let winners = try await concurrentRefreshes(try #require(first.refreshToken), server, lifetimes: lifetimes).compactMap { $0 }
            #expect(winners.count == 1)
            // The replays revoked the whole family, the winner's new tokens included.
            #expect(try await server.tokens.activeAccessToken(winners[0].accessToken) == nil)
            #expect(try await server.tokens.activeRefreshToken(try #require(winners[0].refreshToken)) == nil)
            #expect(try await server.tokens.activeAccessToken(first.accessToken) == nil)
        }
    }

    @Test("of concurrent refreshes with one token within the reuse grace, one rotates and every other gets the same successor", arguments: TestEngine.available)
    func concurrentRefreshWithinTheGrace(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let lifetimes = server.configuration.tokens
            let grant = try await makeUserAndGrant(server)
            let first = try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: lifetimes)
            let answers = try await concurrentRefreshes(try #require(first.refreshToken), server, lifetimes: lifetimes)
            let successors = Set(answers.map { $0?.refreshToken })
            #expect(successors.count == 1 && successors.first! != nil, "\(successors)")
            // One family, alive: the successor is its newest token.
            #expect(try await server.tokens.activeRefreshToken(try #require(successors.first!)) != nil)
            let rows = try await server.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM refresh_tokens WHERE grant_id = \(bind: grant.id)").first()?.decode(column: "n", as: Int.self)
            }
            #expect(rows == 2)
        }
    }

    @Test("migrations run once and reopening is harmless")
    func migrationsAreIdempotent() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        for _ in 0..<2 {
            let database = try await DatabaseOpener.open(.sqlite(path: path), logger: TestServer.logger)
            let versions = try await SchemaMigrator(database: database, logger: TestServer.logger).appliedVersions()
            #expect(versions == Set(SchemaMigrations.all.map(\.version)))
            try await database.close()
        }
    }

    @Test("a failed transaction leaves nothing behind", arguments: TestEngine.available)
    func rollback(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await server.database.transaction { sql in
                    try await sql.raw(
                        "INSERT INTO attempt_counters (scope, subject_hash, failures, blocks, last_attempt_at, blocked_until) VALUES ('s', 'x', 1, 0, 0, 0)"
                    ).run()
                    throw Boom()
                }
            }
            let rows = try await server.database.read { sql in try await sql.raw("SELECT * FROM attempt_counters").all() }
            #expect(rows.isEmpty)
        }
    }
}

@Suite("Copying between databases")
struct DatabaseCopierTests {
    @Test("the schema reads alike from both engines: the same tables, columns and types, each table after those it references")
    func catalogMatchesAcrossEngines() async throws {
        var catalogs: [SchemaCatalog] = []
        for engine in TestEngine.available {
            catalogs.append(
                try await TestServer.withServer(engine: engine) { server in
                    let engine = server.database.engine
                    return try await server.database.read { sql in try await SchemaCatalog.read(sql, engine: engine) }
                })
        }
        for catalog in catalogs {
            let names = catalog.tables.map(\.name)
            #expect(names.count == Set(names).count)
            #expect(!names.contains("gatehouse_migrations"), "the migrator's bookkeeping is not copied")
            #expect(Set(["users", "clients", "signing_keys", "refresh_tokens", "passkeys", "device_authorizations"]).isSubset(of: names))
            for (index, table) in catalog.tables.enumerated() {
                #expect(!table.columns.isEmpty, "\(table.name)")
                for referenced in table.references where referenced != table.name {
                    #expect((names.firstIndex(of: referenced) ?? .max) < index, "\(table.name) comes after \(referenced)")
                }
            }
            #expect(catalog.table("passkeys")?.references == ["users"])
            #expect(catalog.table("users")?.columns.first { $0.name == "email_verified" }?.type == .integer)
            #expect(catalog.table("users")?.columns.first { $0.name == "username" }?.type == .text)
        }
        if let sqlite = catalogs.first, let postgres = catalogs.dropFirst().first {
            func layout(_ catalog: SchemaCatalog) -> [String: [String: SchemaCatalog.ColumnType]] {
                Dictionary(
                    uniqueKeysWithValues: catalog.tables.map { table in (table.name, Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.type) }))
                    })
            }
            #expect(layout(sqlite) == layout(postgres))
        }
    }

    @Test("a table rebuilt after the tables that reference it is still copied before them")
    func orderFollowsReferences() {
        let table = { (name: String, references: [String]) in SchemaCatalog.Table(name: name, columns: [.init(name: "id", type: .text)], references: references)
        }
        let ordered = SchemaCatalog.ordered([table("passkeys", ["users"]), table("clients", []), table("users", ["users"]), table("audit", [])])
        #expect(ordered.map(\.name) == ["clients", "users", "passkeys", "audit"])
    }

    @Test("a copy carries users, clients, keys and tokens, and refuses a target that holds data")
    func copy() async throws {
        try await TestServer.withServer { source in
            let hash = try await source.hasher.hash("a fine password")
            let user = try await source.users.create(username: "kim", email: "kim@example.com", name: "Kim", passwordHash: hash)
            try await source.clients.create(id: "web", secret: String(repeating: "s", count: 32), redirectURIs: ["https://a.example/cb"], scopes: ["openid"])
            let grant = Grant(id: "g", clientID: "web", userID: user.id, scopes: ["openid", "offline_access"], authTime: 1, methods: ["pwd"])
            let tokens = try await source.tokens.issue(for: grant, withRefreshToken: true, lifetimes: source.configuration.tokens)
            try await TestServer.withServer { target in
                await #expect(throws: DatabaseError.self) { try await DatabaseCopier(source: source.database, target: target.database).copy() }
            }
            let folder = try TestServer.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let empty = try await DatabaseOpener.open(.sqlite(path: folder.appendingPathComponent("empty.sqlite").path), logger: TestServer.logger)
            let counts = try await DatabaseCopier(source: source.database, target: empty).copy()
            #expect(counts.first { $0.table == "users" }?.rows == 1)
            #expect(counts.first { $0.table == "signing_keys" }?.rows == 2)
            #expect(try await UserStore(database: empty).find(username: "kim") == user)
            #expect(
                try await TokenStore(database: empty, clock: .system, secret: source.secret).activeAccessToken(tokens.accessToken)?.userID == user.id)
            try await empty.close()
        }
    }
}
