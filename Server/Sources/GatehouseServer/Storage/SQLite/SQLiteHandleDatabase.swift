import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import SQLiteNIO

/// SQLKit's view of one ``SQLiteConnectionHandle``: queries are built and serialized as for any SQLKit
/// database, bound with SQLiteKit's encoder, and run synchronously on the handle.
struct SQLiteHandleDatabase: SQLDatabase {
    let handle: SQLiteConnectionHandle
    let logger: Logger

    /// One encoder for every query: each `SQLiteDataEncoder()` allocates a `JSONEncoder`.
    private static let encoder = SQLiteDataEncoder()

    var eventLoop: any EventLoop { MultiThreadedEventLoopGroup.singleton.any() }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeCompletedFuture { try run(query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try run(query, onRow)
    }

    private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
        let (sql, binds) = serialize(query)
        try handle.execute(sql, try binds.map { try Self.encoder.encode($0) }) { onRow($0) }
    }
}
