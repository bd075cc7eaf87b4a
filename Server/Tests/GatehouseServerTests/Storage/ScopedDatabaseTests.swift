import NIOConcurrencyHelpers
import SQLKit
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

/// Transactions that join the one their task runs in: all-or-nothing together, a recoverable part undone on its own.
@Suite("Joined transactions")
struct ScopedDatabaseTests {
    struct Refused: Error {}

    static func names(_ database: any Database) async throws -> [String] {
        try await database.read { sql in
            try await sql.raw("SELECT name FROM scope_probe ORDER BY name").all().map { try $0.decode(column: "name", as: String.self) }
        }
    }

    static func insert(_ name: String, into database: any Database) async throws {
        try await database.transaction { sql in try await sql.raw("INSERT INTO scope_probe (name) VALUES (\(bind: name))").run() }
    }

    @Test(
        "a recoverable part that fails is undone alone; the transaction commits the rest, and its work after commit runs once", arguments: TestEngine.available)
    func recoverablePart(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = server.database
            try await database.transaction { sql in try await sql.raw("CREATE TABLE scope_probe (name TEXT PRIMARY KEY)").run() }
            let before = try #require(database as? ScopedDatabase).roundTrips
            let ran = NIOLockedValueBox(0)
            try await database.transaction { _ in
                try await Self.insert("kept", into: database)
                // A duplicate key inside: PostgreSQL would refuse every later statement without the savepoint.
                await #expect(throws: (any Error).self) { try await TransactionScope.recoverable { try await Self.insert("kept", into: database) } }
                await #expect(throws: Refused.self) {
                    try await TransactionScope.recoverable {
                        try await database.transaction { sql in
                            try await sql.raw("INSERT INTO scope_probe (name) VALUES ('undone')").run()
                            throw Refused()
                        }
                    }
                }
                // Reads inside see the transaction's own writes.
                #expect(try await Self.names(database) == ["kept"])
                TransactionScope.afterCommit(of: database) { ran.withLockedValue { $0 += 1 } }
                #expect(ran.withLockedValue { $0 } == 0, "work after commit waits for the commit")
                try await Self.insert("also kept", into: database)
            }
            #expect(ran.withLockedValue { $0 } == 1)
            #expect(try await Self.names(database) == ["also kept", "kept"])
            let after = try #require(database as? ScopedDatabase).roundTrips
            #expect(after.transactions - before.transactions == 1 && after.reads - before.reads == 1)
        }
    }

    @Test("a joined part that fails fails the whole transaction, even when its caller catches the error and goes on", arguments: TestEngine.available)
    func joinedFailure(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = server.database
            try await database.transaction { sql in try await sql.raw("CREATE TABLE scope_probe (name TEXT PRIMARY KEY)").run() }
            await #expect(throws: Refused.self) {
                try await database.transaction { _ in
                    try await Self.insert("first", into: database)
                    do {
                        try await database.transaction { sql in
                            try await sql.raw("INSERT INTO scope_probe (name) VALUES ('half')").run()
                            throw Refused()
                        }
                    } catch {
                        // Caught, and on it goes: the transaction must still not commit the half-done part.
                    }
                }
            }
            #expect(try await Self.names(database).isEmpty)
        }
    }

    @Test(
        "when the outer transaction throws, nothing of it or its joined transactions stays, and its work after commit never runs",
        arguments: TestEngine.available)
    func outerRollback(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = server.database
            try await database.transaction { sql in try await sql.raw("CREATE TABLE scope_probe (name TEXT PRIMARY KEY)").run() }
            let ran = NIOLockedValueBox(0)
            await #expect(throws: Refused.self) {
                try await database.transaction { _ in
                    try await Self.insert("gone", into: database)
                    TransactionScope.afterCommit(of: database) { ran.withLockedValue { $0 += 1 } }
                    throw Refused()
                }
            }
            #expect(try await Self.names(database).isEmpty && ran.withLockedValue { $0 } == 0)
            // A task started inside a transaction that outlives it opens its own transactions afterwards.
            let escaped = try await database.transaction { _ in Task { try await Self.insert("later", into: database) } }
            try await escaped.value
            #expect(try await Self.names(database) == ["later"])
        }
    }
}
