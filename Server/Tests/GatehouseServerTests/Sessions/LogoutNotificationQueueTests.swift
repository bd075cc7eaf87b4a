import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Logout notifications on both engines: a session's codes remember its clients, its end queues one notification per
/// client with a back-channel logout URI (not for others, not twice), a claim is won by one taker, failures wait longer
/// each time and are given up after the last attempt, and an account's end queues each of its sessions.
@Suite("Logout notification queue")
struct LogoutNotificationQueueTests {
    @Test("a session's end queues its clients once; claims, retries and giving up", arguments: TestEngine.available)
    func queue(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let ann = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: User.noPassword)
            for (id, uri) in [("told", "https://rp.example/logout"), ("also-told", "https://other.example/logout"), ("quiet", nil)] {
                try await server.clients.create(id: id, secret: nil, redirectURIs: ["https://rp.example/cb"], scopes: ["openid"], backchannelLogoutURI: uri)
            }
            let queue = LogoutNotificationQueue(database: server.database, clock: clock)
            func signIn(_ session: BrowserSession, to clientID: String) async throws {
                let grant = Grant(
                    id: SecureRandom.token(byteCount: 16), clientID: clientID, userID: ann.id, scopes: ["openid"], authTime: clock.now(), methods: ["pwd"],
                    sessionID: session.sid)
                _ = try await server.codes.issue(for: grant, binding: .init(redirectURI: "https://rp.example/cb"), lifetime: 60)
            }

            let started = try await server.sessions.start(userID: ann.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            let sid = try #require(started.session.sid)
            for client in ["told", "quiet", "also-told", "told"] { try await signIn(started.session, to: client) }
            #expect(try await server.sessions.find(id: started.id)?.sid == sid)

            let ended = try #require(try await server.sessions.end(id: started.id))
            #expect(ended.sid == sid && Set(ended.clientIDs) == ["told", "quiet", "also-told"] && ended.clientIDs.count == 3)
            #expect(try await server.sessions.end(id: started.id) == nil, "ended already")
            #expect(try await queue.backlog() == 2, "one each for the two clients with a back-channel logout URI")

            // Two takers at once: each notification goes to one.
            async let first = queue.claimDue(limit: 10)
            async let second = queue.claimDue(limit: 10)
            let claimed = try await first + second
            #expect(claimed.map(\.clientID).sorted() == ["also-told", "told"] && claimed.allSatisfy { $0.sid == sid && $0.userID == ann.id })
            #expect(try await queue.claimDue(limit: 10).isEmpty, "held while claimed")

            let told = try #require(claimed.first { $0.clientID == "told" })
            try await queue.delivered(told)
            var failing = try #require(claimed.first { $0.clientID == "also-told" })
            #expect(try await queue.failed(failing, error: "answered 500", maxAttempts: 3, retryDelay: 10) == false)
            advance(9)
            #expect(try await queue.claimDue(limit: 10).isEmpty, "not due before the retry delay")
            advance(1)
            failing = try #require(try await queue.claimDue(limit: 10).first)
            #expect(failing.attempts == 2)
            // This attempt runs 5 seconds to its timeout: the next is still due 20 seconds after it began.
            advance(5)
            #expect(try await queue.failed(failing, error: "did not answer in time", maxAttempts: 3, retryDelay: 10) == false)
            advance(14)
            #expect(try await queue.claimDue(limit: 10).isEmpty, "the second retry waits twice as long, from the attempt's start")
            advance(1)
            failing = try #require(try await queue.claimDue(limit: 10).first)
            #expect(failing.attempts == 3)
            #expect(try await queue.failed(failing, error: "answered 500", maxAttempts: 3, retryDelay: 10), "given up")
            #expect(try await queue.backlog() == 0)

            // Locking the account ends both of its sessions; each tells its clients.
            let one = try await server.sessions.start(userID: ann.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            let two = try await server.sessions.start(userID: ann.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            try await signIn(one.session, to: "told")
            try await signIn(two.session, to: "told")
            _ = try await server.users.setLocked(username: "ann", true)
            let locked = try await queue.claimDue(limit: 10)
            #expect(Set(locked.map(\.sid)) == Set([one.session.sid, two.session.sid].compactMap { $0 }) && locked.allSatisfy { $0.clientID == "told" })

            // A session that lapses tells nobody; the sweep forgets its clients.
            _ = try await server.users.setLocked(username: "ann", false)
            let lapsing = try await server.sessions.start(userID: ann.id, methods: ["pwd"], lifetime: 60, replacing: nil)
            try await signIn(lapsing.session, to: "told")
            advance(3600)
            _ = try await ExpiredRowSweep(database: server.database, clock: clock, configuration: server.configuration).run()
            let remembered = try await server.database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM session_clients").first()?.decode(column: "n", as: Int.self)
            }
            #expect(remembered == 0)
            #expect(try await queue.backlog() == 2, "only the lock's two, claimed and not yet delivered")
        }
    }
}
