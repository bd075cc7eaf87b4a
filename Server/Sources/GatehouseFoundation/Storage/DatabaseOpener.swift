import Logging

/// Opens the database named by `--database` and brings its schema up to date.
public enum DatabaseOpener {
    /// Opens `location` and runs every migration it does not have yet (unless `migrate` is false). A PostgreSQL pool
    /// opens up to `postgresConnections` connections.
    /// `wait` bounds how long work waits for a connection (PostgreSQL) or the writer (SQLite); `nil` waits as long as it takes
    /// (the CLI).
    public static func open(
        _ location: DatabaseLocation, logger: Logger, migrate: Bool = true, sqliteSynchronous: SQLiteSynchronous = .normal,
        postgresConnections: Int = 32, wait: Duration? = nil
    ) async throws -> any Database {
        let database: any Database =
            switch location {
            case .postgres(let url):
                try await PostgresStoreDatabase.open(url: url, logger: logger, maximumConnections: postgresConnections, connectionWait: wait)
            case .sqlite(let path): try await SQLiteStoreDatabase.open(path: path, logger: logger, synchronous: sqliteSynchronous, writerWait: wait)
            }
        guard migrate else { return database }
        do {
            try await SchemaMigrator(database: database, logger: logger).migrate()
        } catch {
            try? await database.close()
            throw error
        }
        return database
    }

    /// Opens `location` like ``open(_:logger:migrate:sqliteSynchronous:postgresConnections:wait:)``, runs `body` with it,
    /// and closes it, whether `body` returns or throws: for commands and tools that use a database once.
    public static func with<T>(
        _ location: DatabaseLocation, logger: Logger, migrate: Bool = true, _ body: (any Database) async throws -> T
    ) async throws -> T {
        let database = try await open(location, logger: logger, migrate: migrate)
        do {
            let result = try await body(database)
            try await database.close()
            return result
        } catch {
            try? await database.close()
            throw error
        }
    }

    /// Applies the migrations `database` lacks. Returns the versions applied now.
    public static func migrate(_ database: any Database, logger: Logger) async throws -> [Int] {
        try await SchemaMigrator(database: database, logger: logger).migrate()
    }

    /// The newest migration this Gatehouse knows.
    public static var latestSchemaVersion: Int { SchemaMigrations.all.map(\.version).max() ?? 0 }
}
