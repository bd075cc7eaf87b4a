import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The audit trail on both engines: events go with the change they describe or not at all, carry the request's
/// context, and are found by type, user, client, time and cursor.
@Suite("Audit trail")
struct AuditLogTests {
    struct Refused: Error {}

    @Test("an event is written with its transaction's change, and a transaction that fails leaves no event", arguments: TestEngine.available)
    func transactional(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let context = AuditContext(address: "198.51.100.7", userAgent: "Tests/1.0", requestID: "req-1")
            await #expect(throws: Refused.self) {
                try await AuditContext.$current.withValue(context) {
                    try await server.database.transaction { _ in
                        try await server.audit.record(.accountLocked, user: "u-1")
                        throw Refused()
                    }
                }
            }
            #expect(try await server.audit.events(.init(types: [.accountLocked]), limit: 10).isEmpty)
            try await AuditContext.$current.withValue(context) {
                try await server.database.transaction { _ in try await server.audit.record(.accountLocked, user: "u-1", details: ["by": "test"]) }
            }
            let events = try await server.audit.events(.init(types: [.accountLocked]), limit: 10)
            #expect(events.count == 1)
            #expect(events.first?.address == "198.51.100.7" && events.first?.userAgent == "Tests/1.0" && events.first?.requestID == "req-1")
            #expect(events.first?.actor == "user:u-1" && events.first?.details == ["by": "test"])
        }
    }

    @Test("queries by type, user, client, actor and time, paged by cursor, newest first, per hour; old events are swept", arguments: TestEngine.available)
    func queries(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            for index in 0..<5 {
                try await server.audit.record(.signInFailed, client: "web", details: ["attempt": "\(index)"])
                try await server.audit.record(.signInSucceeded, user: "u-\(index % 2)", client: index < 3 ? "web" : "app")
                advance(86_400)
            }
            let start = clock.now() - 5 * 86_400
            #expect(try await server.audit.events(.init(types: [.signInFailed]), limit: 100).map { $0.details["attempt"] } == ["0", "1", "2", "3", "4"])
            #expect(try await server.audit.events(.init(userID: "u-1"), limit: 100).count == 2)
            #expect(try await server.audit.count(.init(types: [.signInFailed])) == 5)
            #expect(try await server.audit.count(.init(types: [.signInSucceeded], clientID: "app")) == 2)
            #expect(try await server.audit.events(.init(types: [.signInSucceeded], clientID: "app"), limit: 100).count == 2)
            #expect(try await server.audit.events(.init(types: [.signInFailed], since: start + 86_400, until: start + 3 * 86_400), limit: 100).count == 2)
            // Per day here, so per hour: one event of each type in each of five hours; the newest first; by actor.
            let hours = try await server.audit.countsPerHour(.init(types: [.signInFailed, .signInSucceeded], since: start))
            #expect(hours.count == 10 && hours.allSatisfy { $0.count == 1 && $0.hourStart % 3600 == 0 })
            #expect(Set(hours.filter { $0.type == .signInFailed }.map(\.hourStart)).count == 5)
            #expect(try await server.audit.newest(.init(types: [.signInFailed]), limit: 2).map { $0.details["attempt"] } == ["4", "3"])
            #expect(try await server.audit.count(.init(actor: "user:u-1")) == 2)
            #expect(try await server.audit.count(.init(requestID: "no-such-request")) == 0)
            let first = try await server.audit.events(.init(types: [.signInFailed]), limit: 2)
            let next = try await server.audit.events(.init(types: [.signInFailed], after: first.last?.id), limit: 2)
            #expect(next.map { $0.details["attempt"] } == ["2", "3"])
            // Kept 3 days: the first two days' events go.
            var configuration = server.configuration
            configuration.audit.retentionDays = 3
            let swept = try await ExpiredRowSweep(database: server.database, clock: clock, configuration: configuration).run()
            #expect(swept.deleted["audit_events", default: 0] >= 4)
            #expect(try await server.audit.events(.init(types: [.signInFailed]), limit: 100).map { $0.details["attempt"] } == ["2", "3", "4"])
        }
    }

    @Test("a password sign-in that fails three times locks out, an unlock by email code, then a sign-in: one event each", arguments: TestEngine.available)
    func journey(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: { $0.throttling.maxFailures = 3 }) { server in
            _ = try await FlowJourneyTests.addUser(server, "sam")
            let (flow, _) = try await FlowDriver.start(server)
            for _ in 0..<3 { _ = try await flow.submit(["username": .text("sam"), "password": .text("wrong password")]) }
            let throttled = try await flow.submit(["username": .text("sam"), "password": .text(FlowJourneyTests.password)])
            #expect(throttled.messageCode == "throttled")
            _ = try await flow.submit(action: "unlock")
            _ = try await flow.submit(["code": .text(try await flow.latestCode())])
            let signedIn = try await flow.submit(["username": .text("sam"), "password": .text(FlowJourneyTests.password)])
            #expect(signedIn.signedIn != nil)
            let events = try await server.audit.events(.init(), limit: 100).filter { $0.type != .configurationLoaded }
            #expect(
                events.map(\.type) == [.signInFailed, .signInFailed, .signInFailed, .accountLockedOut, .signInFailed, .accountUnlocked, .signInSucceeded],
                "\(events.map(\.type))")
            #expect(events.prefix(3).allSatisfy { $0.details["reason"] == "invalid_credentials" && $0.details["username"] == "sam" })
            #expect(events[4].details["reason"] == "throttled")
            let sam = try #require(try await server.users.find(username: "sam"))
            #expect(events[5].userID == sam.id && events[6].userID == sam.id && events[6].details["methods"] == "pwd")
            // Nothing secret: neither the password nor the code is in any event.
            let everything = String(decoding: try JSONEncoder().encode(events), as: UTF8.self)
            #expect(!everything.contains(FlowJourneyTests.password) && !everything.contains("wrong password"))
        }
    }
}
