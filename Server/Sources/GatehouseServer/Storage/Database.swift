import SQLKit

/// The one store interface: every store in Gatehouse talks to the database through this protocol,
/// with queries written once in dialect-neutral SQL (`SQLKit`), so SQLite and PostgreSQL share them.
public protocol Database: Sendable {
    /// Runs `body` outside a transaction; each statement sees the latest committed data.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body` in one transaction: either everything it writes is committed or nothing is.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Inside a ``transaction(_:)``: waits for `lock` and holds it until the transaction ends.
    func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws

    /// Inside a ``transaction(_:)``: takes `lock` if no other transaction holds it, and holds it until the
    /// transaction ends; `false` (at once) when another holds it.
    func tryLock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws -> Bool

    /// Closes every connection. The database must not be used afterwards.
    func close() async throws
}
