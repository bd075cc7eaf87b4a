import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Attempt limits across flows and nodes")
struct AttemptLimiterTests {
    private static let limit = AttemptLimit(maxFailures: 3, window: 3600, cooldown: 60, maxCooldown: 240)

    private static func admitted(_ admission: AttemptLimiter.Admission) -> AttemptLimiter.Ticket? {
        if case .admitted(let ticket) = admission { ticket } else { nil }
    }

    @Test("of twenty concurrent guesses only the limit's worth are checked, and exactly one block begins", arguments: TestEngine.available)
    func concurrentGuesses(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let limit = AttemptLimit(maxFailures: 8, window: 3600, cooldown: 60, maxCooldown: 60)
            let counter = server.guesses.counter("code:mfa", subject: "user:mallory", limit: limit)
            let admissions = try await withThrowingTaskGroup(of: AttemptLimiter.Admission.self) { group in
                for _ in 0..<20 { group.addTask { try await server.guesses.admit([counter]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let tickets = admissions.compactMap(Self.admitted)
            #expect(tickets.count == 8)
            let settlements = try await withThrowingTaskGroup(of: AttemptLimiter.Settlement.self) { group in
                for ticket in tickets { group.addTask { try await server.guesses.settle(ticket, correct: false) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(settlements.map(\.blocked.count).reduce(0, +) == 1)
            #expect(try await server.guesses.blockedUntil(counter) != nil)
            #expect(try await server.guesses.blockedUntil(server.guesses.counter("code:mfa", subject: "user:someone-else", limit: limit)) == nil)
        }
    }

    @Test("blocks in a row double up to the longest, and a quiet window after the last one starts again", arguments: TestEngine.available)
    func progressiveBlocks(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let counter = server.guesses.counter("code:recovery", subject: "user:victim", limit: Self.limit)
            func failUntilBlocked() async throws -> Int64? {
                for _ in 0..<Self.limit.maxFailures {
                    let ticket = try #require(Self.admitted(try await server.guesses.admit([counter])))
                    try await server.guesses.settle(ticket, correct: false)
                }
                if case .blocked(let until, let scope) = try await server.guesses.admit([counter]) {
                    #expect(scope == "code:recovery")
                    return until - clock.now()
                }
                return nil
            }
            var lengths: [Int64?] = []
            for _ in 0..<4 {
                lengths.append(try await failUntilBlocked())
                advance(try #require(lengths.last ?? nil))
            }
            #expect(lengths == [60, 120, 240, 240])
            // An hour without a wrong guess after the last block ended: the count and the doubling start again.
            advance(3600)
            #expect(try await failUntilBlocked() == 60)
        }
    }

    @Test("a right guess gives its place back but never clears the wrong ones before it", arguments: TestEngine.available)
    func rightGuessDoesNotReset(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let counter = server.guesses.counter("code:mfa", subject: "user:ann", limit: Self.limit)
            for correct in [false, false, true, true, false] {
                let ticket = try #require(Self.admitted(try await server.guesses.admit([counter])))
                try await server.guesses.settle(ticket, correct: correct)
            }
            #expect(try await server.guesses.blockedUntil(counter) != nil)
        }
    }

    @Test("a guess takes every counter or none: a blocked client address costs the account nothing", arguments: TestEngine.available)
    func allOrNone(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let source = server.guesses.counter("source", subject: "v4:192.0.2.1", limit: Self.limit)
            let account = server.guesses.counter("password", subject: "name:ann", limit: Self.limit)
            for _ in 0..<3 {
                let ticket = try #require(
                    Self.admitted(try await server.guesses.admit([server.guesses.counter("password", subject: "name:x", limit: Self.limit), source])))
                try await server.guesses.settle(ticket, correct: false)
            }
            guard case .blocked(_, let scope) = try await server.guesses.admit([account, source]) else {
                Issue.record("the client address should be blocked")
                return
            }
            #expect(scope == "source")
            // Ann's count was given back: three guesses of her own from elsewhere are still checked.
            for _ in 0..<3 { #expect(Self.admitted(try await server.guesses.admit([account])) != nil) }
        }
    }

    @Test("a browser that signed in to the account before passes the name's block with the right password", arguments: TestEngine.available)
    func deviceCookiePassesTheNamesBlock(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.throttling.maxFailures = 3 }) { server in
            let hash = try await server.hasher.hash("a fine password")
            let user = try await server.users.create(username: "yan", email: "yan@example.com", name: nil, passwordHash: hash)
            let device = try #require(server.deviceCookies.verify(server.deviceCookies.issue(userID: user.id)))
            for _ in 0..<3 { _ = try await server.authenticator.authenticate(username: "yan", password: "wrong") }
            #expect(try await server.authenticator.authenticate(username: "yan", password: "a fine password") == .throttled)
            #expect(try await server.authenticator.authenticate(username: "yan", password: "a fine password", devices: [device]) == .authenticated(user))
            // Another account's device cookie does not help, nor does a forged one.
            let other = try #require(server.deviceCookies.verify(server.deviceCookies.issue(userID: "someone-else")))
            #expect(try await server.authenticator.authenticate(username: "yan", password: "a fine password", devices: [other]) == .throttled)
            let token = server.deviceCookies.issue(userID: user.id)
            #expect(server.deviceCookies.verify(String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")) == nil)
            // The device's own wrong passwords are counted against the device.
            for _ in 0..<3 { _ = try await server.authenticator.authenticate(username: "yan", password: "wrong", devices: [device]) }
            #expect(try await server.authenticator.authenticate(username: "yan", password: "a fine password", devices: [device]) == .throttled)
        }
    }
}
