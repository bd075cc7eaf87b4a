/// A task-local value that a transaction's body must still see when a database engine runs the body on a task of its
/// own (SQLite's writer, a PostgreSQL connection's event loop). The layers above say which value (the audit trail's
/// request context); storage carries it without knowing what it is.
package protocol CarriedTaskLocal: Sendable {
    /// The value in the running task, taken along to the engine's task.
    static func captured() -> Self

    /// Runs `body` with this value set as the task-local value again.
    func restored<T: Sendable>(around body: () async throws -> T) async throws -> T
}
