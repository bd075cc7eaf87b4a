import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

/// Work the database cannot take in time fails at once instead of waiting without end; work whose caller has gone is
/// not committed.
@Suite("Waiting for the database")
struct DatabaseWaitTests {
    /// The engine's database with `wait` as its bound, the `probe` table made, and the writer or pool's one free
    /// connection held by a transaction that sleeps for `held`.
    private static func withBusyDatabase(
        _ engine: TestEngine, wait: Duration, held: Duration, _ body: (any Database) async throws -> Void
    ) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let location = server.configuration.database
            // A second handle on the same database, small and bounded: two PostgreSQL connections, or SQLite's one writer.
            let bounded = DatabaseOpener.joinable(
                try await DatabaseOpener.open(location, logger: TestServer.logger, migrate: false, postgresConnections: 2, wait: wait))
            let connections = engine == .postgres ? 2 : 1
            try await Self.warm(bounded, connections: connections)
            try await bounded.transaction { sql in try await sql.raw("CREATE TABLE probe (name TEXT PRIMARY KEY)").run() }
            let holders = (0..<connections).map { _ in
                Task { try await bounded.transaction { _ in try await Task.sleep(for: held) } }
            }
            try await Task.sleep(for: .milliseconds(200))  // the holders have their connections
            do {
                try await body(bounded)
            } catch {
                for holder in holders { _ = try? await holder.value }
                try? await bounded.close()
                throw error
            }
            for holder in holders { _ = try? await holder.value }
            try await bounded.close()
        }
    }

    /// Opens `connections` connections before the test's bound matters: on a busy machine opening one (PostgreSQL's
    /// SCRAM in a debug build) can take longer than the wait, and the pool goes on opening it after a lease gives up.
    private static func warm(_ database: any Database, connections: Int) async throws {
        for attempt in 1...20 {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<connections {
                        group.addTask { try await database.read { _ in try await Task.sleep(for: .milliseconds(100)) } }
                    }
                    try await group.waitForAll()
                }
                return
            } catch let error as DatabaseError where error.isUnavailable && attempt < 20 {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    @Test("past the wait, a write that found no connection (or no turn at the writer) fails as unavailable, and never runs", arguments: TestEngine.available)
    func boundedWait(engine: TestEngine) async throws {
        try await Self.withBusyDatabase(engine, wait: .milliseconds(500), held: .seconds(3)) { database in
            let ran = NIOLockedValueBox(false)
            let started = ContinuousClock.now
            await #expect {
                try await database.transaction { sql in
                    ran.withLockedValue { $0 = true }
                    try await sql.raw("INSERT INTO probe (name) VALUES ('late')").run()
                }
            } throws: { error in
                (error as? DatabaseError)?.isUnavailable == true
            }
            let waited = ContinuousClock.now - started
            // Failing as unavailable shows it gave up before a holder let go; the upper bound only catches a hang (a busy
            // machine takes a while to get round to the failed lease).
            #expect(waited >= .milliseconds(450) && waited < .seconds(10), "\(waited)")
            try await Task.sleep(for: .seconds(3))  // the holders are done: the given-up write must not run late
            #expect(!ran.withLockedValue { $0 })
            let rows = try await database.read { sql in try await sql.raw("SELECT name FROM probe").all() }
            #expect(rows.isEmpty)
            // Once a connection is free, work runs as usual.
            try await database.transaction { sql in try await sql.raw("INSERT INTO probe (name) VALUES ('later')").run() }
        }
    }

    @Test("the wait is said as an operator reads it, under a second too")
    func spokenWait() {
        #expect(DatabaseError.unavailable(waited: .seconds(5)).description.contains("within 5 seconds;"))
        #expect(DatabaseError.unavailable(waited: .seconds(1)).description.contains("within 1 second;"))
        #expect(DatabaseError.unavailable(waited: .milliseconds(500)).description.contains("within 500 ms;"))
    }

    @Test("work whose caller has gone rolls back instead of committing, in a transaction and in an autocommitted statement", arguments: TestEngine.available)
    func callerGone(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = server.database
            try await database.transaction { sql in try await sql.raw("CREATE TABLE probe (name TEXT PRIMARY KEY)").run() }
            let gone = NIOLockedValueBox(false)
            try await CallerPresence.$current.withValue(CallerPresence { gone.withLockedValue { $0 } }) {
                try await database.transaction { sql in try await sql.raw("INSERT INTO probe (name) VALUES ('present')").run() }
                await #expect {
                    try await database.transaction { sql in
                        try await sql.raw("INSERT INTO probe (name) VALUES ('abandoned')").run()
                        gone.withLockedValue { $0 = true }  // the client closes its connection while the work runs
                    }
                } throws: { error in
                    (error as? DatabaseError)?.isCallerGone == true
                }
                await #expect {
                    try await database.autocommit { sql in try await sql.raw("INSERT INTO probe (name) VALUES ('alone')").run() }
                } throws: { error in
                    (error as? DatabaseError)?.isCallerGone == true
                }
            }
            let names = try await database.read { sql in
                try await sql.raw("SELECT name FROM probe ORDER BY name").all().map { try $0.decode(column: "name", as: String.self) }
            }
            #expect(names == ["present"])
        }
    }
}
