import Foundation
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The background sweep on both engines: only what has expired goes (a live refresh token family, an unexpired flow,
/// a pending courier message and a recent delivered one survive), in batches, and on PostgreSQL one node at a time.
@Suite("Sweeping expired rows")
struct ExpiredRowSweepTests {
    private func count(_ table: String, _ server: IdentityServer) async throws -> Int {
        try await server.database.read { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first()?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    @Test("every table whose rows expire has a rule from its store, and every rule names a table and key of the schema")
    func everyExpiringTableIsSwept() async throws {
        try await TestServer.withServer { server in
            let engine = server.database.engine
            let catalog = try await server.database.read { sql in try await SchemaCatalog.read(sql, engine: engine) }
            let rules = ExpiredRowSweep(database: server.database, configuration: server.configuration).rules(at: 1_000_000)
            #expect(Set(rules.map(\.table)).count == rules.count, "one rule per table")
            for rule in rules {
                let columns = Set(catalog.table(rule.table)?.columns.map(\.name) ?? [])
                #expect(!columns.isEmpty, "\(rule.table) is a table")
                for key in rule.key.split(separator: ",") {
                    #expect(columns.contains(key.trimmingCharacters(in: .whitespaces)), "\(rule.table) has \(key)")
                }
            }
            // Admin tokens stay listed after they expire, for the operator to see and revoke; they are few.
            let kept: Set = ["admin_tokens"]
            let expiring = catalog.tables.filter { $0.columns.contains { $0.name == "expires_at" } }.map(\.name)
            #expect(Set(expiring).subtracting(kept).isSubset(of: Set(rules.map(\.table))))
        }
    }

    @Test("deletes what expired, keeps what lives, in batches", arguments: TestEngine.available)
    func sweep(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let lifetimes = server.configuration.tokens
            let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: User.noPassword)
            func grant() -> Grant {
                Grant(
                    id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: ["openid", "offline_access"],
                    authTime: clock.now(), methods: ["pwd"])
            }
            let request = AuthorizationRequest(clientID: "app", redirectURI: "com.example.app:/cb", scopes: ["openid"], prompts: [])
            // Old: five families, a flow, a browser session, a delivered message; all of them past their time below.
            for _ in 0..<5 { _ = try await server.tokens.issue(for: grant(), withRefreshToken: true, lifetimes: lifetimes) }
            _ = try await server.flows.create(FlowStore.LoginState(request: request, step: .credentials), owner: .client("app"), lifetime: 600)
            // A flow that outlives the wait below.
            let flow = try await server.flows.create(
                FlowStore.LoginState(request: request, step: .credentials), owner: .client("app"), lifetime: lifetimes.refreshToken + 86_400 * 3)
            _ = try await server.sessions.start(userID: user.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            let delivered = try #require(
                try await server.courier.queue.enqueue(channel: .email, recipient: "ann@example.com", template: .recoveryCode, subject: "s", body: "b"))
            try await server.courier.queue.markSent(delivered)
            let pending = try #require(
                try await server.courier.queue.enqueue(channel: .email, recipient: "bob@example.com", template: .recoveryCode, subject: "s", body: "b"))
            advance(lifetimes.refreshToken + 86_400 * 2)
            // Live: a family rotated once (its used token stays until it expires, so a replay still revokes it), a
            // session and a message delivered today.
            let live = try await server.tokens.issue(for: grant(), withRefreshToken: true, lifetimes: lifetimes)
            guard
                case .rotated(_, let rotated, _) = try await server.tokens.refresh(
                    try #require(live.refreshToken), clientID: "web", narrowedScopes: nil, lifetimes: lifetimes)
            else { throw Unexpected() }
            let session = try await server.sessions.start(userID: user.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            try await server.courier.queue.markSent(
                try #require(
                    try await server.courier.queue.enqueue(channel: .email, recipient: "cy@example.com", template: .recoveryCode, subject: "s", body: "b")))

            // Batches of two: the five old families' refresh tokens take three batches.
            let sweep = ExpiredRowSweep(database: server.database, clock: clock, configuration: server.configuration, batchSize: 2)
            let outcome = try await sweep.run()
            #expect(!outcome.skipped)
            #expect(outcome.deleted["refresh_tokens"] == 5)
            #expect(outcome.deleted["access_tokens"] == 5)
            #expect(outcome.deleted["flows"] == 1 && outcome.deleted["courier_messages"] == 1)
            #expect(outcome.deleted["browser_sessions"] == 1)
            #expect(try await count("browser_sessions", server) == 1, "the old session is gone, the new one stays")
            #expect(try await count("refresh_tokens", server) == 2, "the live family's used and new refresh tokens")
            #expect(try await server.flows.locate(flow) != nil)
            #expect(try await server.sessions.find(id: session.id) != nil)
            let messages = try await server.courier.queue.list(limit: 10).map(\.id)
            #expect(messages.contains(pending) && !messages.contains(delivered) && messages.count == 2)
            // The live family still refreshes; its used token, presented again (past the reuse grace), still revokes it.
            advance(lifetimes.refreshReuseGrace + 1)
            guard
                case .replayed = try await server.tokens.refresh(
                    try #require(live.refreshToken), clientID: "web", narrowedScopes: nil, lifetimes: lifetimes)
            else { throw Unexpected() }
            #expect(rotated.refreshToken != nil)
            // Nothing more is due: a second pass deletes nothing.
            #expect(try await sweep.run().total == 0)
        }
    }

    @Test("one node sweeps at a time: while another holds the sweep, a pass stands aside", arguments: TestEngine.available.filter { $0 == .postgres })
    func oneNodeAtATime(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let sweep = ExpiredRowSweep(database: server.database, configuration: server.configuration)
            let (held, release) = AsyncStream<Void>.makeStream()
            let (taken, tookIt) = AsyncStream<Void>.makeStream()
            async let holder: Bool = server.database.transaction { sql in
                let got = try await server.database.tryLock(.expiredRowSweep, in: sql)
                tookIt.yield()
                for await _ in held { break }
                return got
            }
            for await _ in taken { break }
            let whileHeld = try await sweep.run()
            release.yield()
            #expect(try await holder, "the first transaction took the sweep lock")
            #expect(whileHeld.skipped)
            let afterwards = try await sweep.run()
            #expect(!afterwards.skipped)
        }
    }

    @Test("a long sweep goes in short transactions: sign-ins write between its batches", arguments: TestEngine.available)
    func sweepLetsOthersWrite(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: User.noPassword)
            let now = clock.now()
            // 3,000 access tokens that expired long ago, written in one go.
            try await server.database.transaction { sql in
                for chunk in stride(from: 0, to: 3_000, by: 500) {
                    let values = (chunk..<chunk + 500).map { index -> SQLQueryString in
                        "(\(bind: "old-\(index)"), NULL, 'web', \(bind: user.id), 'openid', \(bind: now - 7_200), \(bind: now - 3_600))"
                    }
                    try await sql.raw(
                        "INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at) VALUES \(values.joined(separator: ", "))"
                    ).run()
                }
            }
            advance(1)
            let database = try #require(server.database as? ScopedDatabase)
            let before = database.roundTrips.transactions
            let sweep = ExpiredRowSweep(database: server.database, clock: clock, configuration: server.configuration, batchSize: 100)
            let sweeping = Task { try await sweep.run() }
            // Sign-ins' writes go on while the sweep runs: each gets the database between two batches.
            let grant = Grant(id: "live", clientID: "web", userID: user.id, scopes: ["openid"], authTime: now, methods: ["pwd"])
            var issued = 0
            var issuedMidSweep = false
            for _ in 0..<2_000 {
                _ = try await server.tokens.issue(for: grant, withRefreshToken: false, lifetimes: server.configuration.tokens)
                issued += 1
                let left = try await server.database.read { sql in
                    try await sql.raw("SELECT COUNT(*) AS n FROM access_tokens WHERE token_hash LIKE 'old-%'").first()?.decode(column: "n", as: Int.self)
                }
                if let left, left > 0, left < 3_000 { issuedMidSweep = true }
                if left == 0 { break }
            }
            let outcome = try await sweeping.value
            #expect(outcome.deleted["access_tokens"] == 3_000)
            #expect(database.roundTrips.transactions - before >= 30 + 1, "thirty batches, each its own transaction, and the sign-ins' own")
            #expect(issuedMidSweep, "a token was issued after the sweep's first batch and before its last")
            #expect(try await count("access_tokens", server) == issued, "the sweep took only the expired tokens")
        }
    }

    private struct Unexpected: Error {}
}
