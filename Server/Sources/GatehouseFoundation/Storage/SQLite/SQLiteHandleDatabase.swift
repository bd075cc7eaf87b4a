import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLKit's view of one ``SQLiteConnectionHandle``: queries are built and serialized as for any SQLKit
/// database, bound with SQLiteKit's encoder, and run synchronously on the handle.
package struct SQLiteHandleDatabase: SQLDatabase {
    package let handle: SQLiteConnectionHandle
    package let logger: Logger

    /// One encoder for every query: each `SQLiteDataEncoder()` allocates a `JSONEncoder`.
    private static let encoder = SQLiteDataEncoder()

    package var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    package var dialect: any SQLDialect { SQLiteDialect() }
    package var queryLogLevel: Logger.Level? { nil }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeCompletedFuture { try run(query, onRow) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try run(query, onRow)
    }

    private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        try handle.execute(sql, try binds.map(Self.sqliteData)) { onRow($0) }
    }

    /// The value to bind: the types every store binds converted directly, the rest by SQLiteKit's encoder, which
    /// takes a nested encoder (an allocation and several dynamic casts) for every optional.
    package static func sqliteData(_ value: any Encodable & Sendable) throws -> SQLiteData {
        switch value {
        case let text as String: .text(text)
        case let number as Int64: .integer(Int(number))
        case let number as Int: .integer(number)
        case let text as String?: text.map(SQLiteData.text) ?? .null  // also every other type's nil
        case let number as Int64?: number.map { .integer(Int($0)) } ?? .null
        case let number as Int?: number.map(SQLiteData.integer) ?? .null
        default: try encoder.encode(value)
        }
    }
}
