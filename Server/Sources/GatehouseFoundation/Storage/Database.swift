import SQLKit

/// The one store interface: every store in Gatehouse talks to the database through this protocol,
/// with queries written once in dialect-neutral SQL (`SQLKit`), so SQLite and PostgreSQL share them.
public protocol Database: Sendable {
    /// The engine behind it, for the few queries written for one engine's strengths.
    var engine: DatabaseEngine { get }

    /// Runs `body` outside a transaction; each statement sees the latest committed data.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body`, which only reads, in one read-only transaction: every statement sees the database as it was when the
    /// first one began, whatever commits meanwhile (a copy of a live database, say). SQLite reads a WAL snapshot on a
    /// reader; PostgreSQL runs `REPEATABLE READ READ ONLY`. Writers are not held up.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body` in one transaction: either everything it writes is committed or nothing is.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Runs `body`, whose only write is one statement at its very end, without a transaction around it: the statement
    /// commits by itself. On PostgreSQL that saves the `BEGIN` and `COMMIT` round trips (half of a token grant's);
    /// on SQLite, where round trips cost nothing, it is a ``transaction(_:)``. Reads before the statement see the
    /// latest committed data, as each statement of a transaction does at PostgreSQL's READ COMMITTED. Nothing may be
    /// written before the statement or after it (it would commit apart), and audit events need a transaction.
    func autocommit<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T

    /// Inside a ``transaction(_:)``: waits for `lock` and holds it until the transaction ends.
    func lock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws

    /// Inside a ``transaction(_:)``: takes `lock` if no other transaction holds it, and holds it until the
    /// transaction ends; `false` (at once) when another holds it.
    func tryLock(_ lock: DatabaseLock, in sql: any SQLDatabase) async throws -> Bool

    /// Closes every connection. The database must not be used afterwards.
    func close() async throws
}
