import Foundation
import SQLKit
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

/// PostgreSQL runs the stores' queries as prepared statements: planned once per connection, the values bound as
/// before, and prepared afresh when a schema change breaks a prepared form.
@Suite("Prepared statements on PostgreSQL")
struct PreparedStatementTests {
    static var postgres: [TestEngine] { TestEngine.available.filter { $0 == .postgres } }

    @Test("a query run again on a connection reuses its prepared statement and its generic plan; values and NULLs bind as before", arguments: postgres)
    func reusesThePlan(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = server.database
            try await database.transaction { sql in
                try await sql.raw("CREATE TABLE prepared_probe (id TEXT PRIMARY KEY, number BIGINT, note TEXT, flag BOOLEAN)").run()
            }
            let plans = try await database.transaction { sql in
                for index in 0..<8 {
                    let note: String? = index.isMultiple(of: 2) ? nil : "note \(index)"
                    try await sql.raw(
                        "INSERT INTO prepared_probe (id, number, note, flag) VALUES (\(bind: "row-\(index)"), \(bind: Int64(index) << 40), \(bind: note), \(bind: index > 3))"
                    ).run()
                }
                var found: [String] = []
                for index in 0..<8 {
                    let row = try #require(try await sql.raw("SELECT * FROM prepared_probe WHERE id = \(bind: "row-\(index)")").first())
                    #expect(try row.decode(column: "number", as: Int64.self) == Int64(index) << 40)
                    #expect(try row.decode(column: "note", as: String?.self) == (index.isMultiple(of: 2) ? nil : "note \(index)"))
                    #expect(try row.decode(column: "flag", as: Bool.self) == (index > 3))
                    found.append(try row.decode(column: "id", as: String.self))
                }
                #expect(found == (0..<8).map { "row-\($0)" })
                return try await sql.raw(
                    "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT * FROM \"prepared_probe\"%' OR statement LIKE 'SELECT * FROM prepared_probe%'"
                ).all().map { (try $0.decode(column: "generic_plans", as: Int64.self), try $0.decode(column: "custom_plans", as: Int64.self)) }
            }
            let plan = try #require(plans.first, "the SELECT is prepared on the connection")
            #expect(plans.count == 1)
            #expect(plan.0 + plan.1 == 8, "all eight runs used the one prepared statement")
            #expect(plan.0 >= 3, "PostgreSQL settled on a generic plan: the statement is no longer planned per run")
        }
    }

    @Test("a column added under a prepared SELECT * is seen on the next read: the statement is prepared afresh", arguments: postgres)
    func preparedAfreshAfterSchemaChange(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let database = server.database
            try await database.transaction { sql in
                try await sql.raw("CREATE TABLE prepared_change (id TEXT PRIMARY KEY)").run()
                try await sql.raw("INSERT INTO prepared_change (id) VALUES ('one')").run()
            }
            // Prepared on every pooled connection the reads happen to take.
            for _ in 0..<20 {
                let columns = try await database.read { sql in try await sql.raw("SELECT * FROM prepared_change WHERE id = \(bind: "one")").first()?.allColumns
                }
                #expect(columns == ["id"])
            }
            try await database.transaction { sql in try await sql.raw("ALTER TABLE prepared_change ADD COLUMN extra TEXT DEFAULT 'x'").run() }
            for _ in 0..<20 {
                let columns = try await database.read { sql in try await sql.raw("SELECT * FROM prepared_change WHERE id = \(bind: "one")").first()?.allColumns
                }
                #expect(columns == ["id", "extra"])
                let inTransaction = try await database.transaction { sql in
                    try await sql.raw("SELECT * FROM prepared_change WHERE id = \(bind: "one")").first()?.allColumns
                }
                #expect(inTransaction == ["id", "extra"])
            }
        }
    }

    @Test("names are bounded: texts past the capacity, a text renamed too often, and texts whose plan depends on the values run unprepared")
    func namesAreBounded() {
        let names = PreparedStatementNames(capacity: 2)
        let first = names.name(for: "SELECT 1", binds: 0)
        #expect(first != nil)
        #expect(names.name(for: "SELECT 1", binds: 0) == first, "one name per text")
        #expect(names.name(for: "SELECT 2", binds: 0) != nil)
        #expect(names.name(for: "SELECT 3", binds: 0) == nil, "past the capacity")
        names.renew("SELECT 1")
        let renamed = names.name(for: "SELECT 1", binds: 0)
        #expect(renamed != nil && renamed != first)
        for _ in 0..<PreparedStatementNames.maximumRenames { names.renew("SELECT 1") }
        #expect(names.name(for: "SELECT 1", binds: 0) == nil, "a text that keeps breaking runs unprepared")

        // Statements whose best plan depends on their values are planned each time.
        let values = PreparedStatementNames()
        #expect(values.name(for: "SELECT id FROM t WHERE expires_at <= $1 LIMIT 500", binds: 1) == nil, "a batch of the rows due")
        #expect(values.name(for: "SELECT id FROM users WHERE username LIKE $1", binds: 1) == nil, "a pattern")
        #expect(values.name(for: "SELECT id FROM users WHERE id IN (…)", binds: 33) == nil, "a long list of values")
        #expect(values.name(for: "SELECT id FROM users WHERE id IN (… 32 …)", binds: 32) != nil)
        #expect(values.name(for: "SELECT id FROM t WHERE expires_at <= $1 LIMIT 500", binds: 1) == nil, "remembered")
    }
}
