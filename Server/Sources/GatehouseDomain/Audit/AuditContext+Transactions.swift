import GatehouseFoundation

/// A request's audit context reaches the transactions it runs even when a database engine runs them on a task of its
/// own, so the events they record name the request's actor and address.
extension AuditContext: CarriedTaskLocal {
    package static func captured() -> AuditContext { current }

    package func restored<T: Sendable>(around body: () async throws -> T) async throws -> T {
        try await Self.$current.withValue(self) { try await body() }
    }
}

extension DatabaseOpener {
    /// `database` with transactions that nest: a store's transaction inside the caller's joins it, so a change and
    /// its audit event commit together (as they do in the server). The command-line tool opens its databases so.
    public static func joinable(_ database: any Database) -> any Database {
        database is ScopedDatabase ? database : ScopedDatabase(database, carrying: AuditContext.self)
    }
}
