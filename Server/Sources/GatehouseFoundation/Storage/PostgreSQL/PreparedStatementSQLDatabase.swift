import Logging
import NIOCore
import PostgresKit
import PostgresNIO
import SQLKit

/// The `SQLDatabase` the stores see on PostgreSQL: one pooled connection that runs each query as a named prepared
/// statement (``PreparedStatementNames``), so PostgreSQL plans it once per connection instead of on every request.
/// Planning was more than half of PostgreSQL's work for a token lookup.
///
/// A prepared statement settles on one plan for all values, so statements whose best plan depends on the values
/// are planned each time instead, on PostgresKit's usual unnamed path: those with a `LIMIT` (a batch of the rows
/// due, a page of a listing: how many match decides between an index and a scan), a `LIKE` pattern, or more than
/// ``maximumBinds`` values (long `IN` lists, bulk inserts, where planning is the smaller cost anyway). So do
/// queries whose values PostgresNIO cannot encode directly, and texts past the names' capacity.
package struct PreparedStatementSQLDatabase: SQLDatabase {
    /// Statements with more values than this are planned each time.
    package static let maximumBinds = 32

    package let connection: PostgresConnection
    package let names: PreparedStatementNames

    package var logger: Logger { connection.logger }
    package var eventLoop: any EventLoop { connection.eventLoop }
    package var version: (any SQLDatabaseReportedVersion)? { nil }
    package var dialect: any SQLDialect { PostgresDialect() }
    package var queryLogLevel: Logger.Level? { nil }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, binds) = serialize(query)
        guard let name = names.name(for: sql, binds: binds.count), let bindings = try Self.bindings(binds) else {
            try await connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
            return
        }
        do {
            try await DynamicStatement.$text.withValue(.init(name: name, sql: sql)) {
                for try await row in try await connection.execute(DynamicStatement(bindings: bindings), logger: logger) {
                    onRow(row.sql())
                }
            }
        } catch let error as PSQLError where Self.breaksStatement(error) {
            names.renew(sql)
            throw error
        }
    }

    /// Whether one plan serves `sql` whatever its values (see the type's description); asked once per text.
    package static func plansOnce(_ sql: String, binds: Int) -> Bool {
        guard binds <= maximumBinds else { return false }
        let upper = sql.uppercased()
        return !upper.contains("LIMIT") && !upper.contains("LIKE")
    }

    /// The values as PostgresNIO's own encodings, the same PostgresKit chooses for them; `nil` when one has none.
    package static func bindings(_ binds: [any Encodable & Sendable]) throws -> PostgresBindings? {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            if (bind as? any OptionalValue)?.isNone == true {
                bindings.appendNull()
            } else if let value = bind as? any PostgresThrowingDynamicTypeEncodable {
                try bindings.append(value)
            } else {
                return nil
            }
        }
        return bindings
    }

    /// Errors after which this statement's prepared form on the connection may be of no more use: it went stale, or
    /// its preparation failed (PostgresNIO then remembers the failure for the name; an aborted transaction's
    /// `25P02`, say). A constraint the data broke (`23…`) or a transaction PostgreSQL aborted to be run again
    /// (`40001`, `40P01`) says nothing about the statement.
    package static func breaksStatement(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return !state.hasPrefix("23") && state != "40001" && state != "40P01"
    }

    /// The prepared statement's result changed shape under it (`0A000`, a migration by a newer node) or the server
    /// no longer knows it (`26000`): running the work again prepares it afresh.
    package static func isStale(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "0A000" || state == "26000"
    }
}

/// Lets ``PreparedStatementSQLDatabase`` tell an optional holding nothing from a value.
private protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    package var isNone: Bool { self == nil }
}

/// A prepared statement whose text is chosen at run time. PostgresNIO takes a prepared statement's name and SQL from
/// static properties of its type, read when the statement is sent; here they read a task-local that
/// ``PreparedStatementSQLDatabase`` sets around each execution.
private struct DynamicStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        var name: String
        var sql: String
    }

    @TaskLocal static var text = Text(name: "", sql: "")

    static var name: String { text.name }
    static var sql: String { text.sql }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
