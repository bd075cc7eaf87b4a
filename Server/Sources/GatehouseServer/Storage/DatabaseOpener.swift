import Logging

/// Opens the database named by `--database` and brings its schema up to date.
public enum DatabaseOpener {
    /// Opens `location` (a SQLite file path or a `postgres://` URL) and runs every migration it does not have yet.
    public static func open(_ location: String, logger: Logger, migrate: Bool = true) async throws -> any Database {
        let database: any Database
        switch DatabaseKind(location) {
        case .postgres:
            database = try await PostgresStoreDatabase.open(url: location, logger: logger)
        case .sqlite:
            database = try await SQLiteStoreDatabase.open(path: location, logger: logger)
        case .unsupported:
            throw DatabaseError.unsupportedURL(redactingCredentials(location))
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

    /// Applies the migrations `database` lacks. Returns the versions applied now.
    public static func migrate(_ database: any Database, logger: Logger) async throws -> [Int] {
        try await SchemaMigrator(database: database, logger: logger).migrate()
    }

    /// The newest migration this Gatehouse knows.
    public static var latestSchemaVersion: Int { SchemaMigrations.all.map(\.version).max() ?? 0 }

    /// A database URL with its password removed, safe to print.
    static func redactingCredentials(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url.range(of: "@", range: schemeEnd.upperBound..<url.endIndex) else {
            return url
        }
        return url[..<schemeEnd.upperBound] + "…" + url[at.lowerBound...]
    }
}

/// Which engine a `--database` value names.
public enum DatabaseKind: Sendable, Equatable {
    case sqlite
    case postgres
    case unsupported

    public init(_ location: String) {
        let lowered = location.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres
        } else if lowered.contains("://") {
            self = .unsupported
        } else {
            self = .sqlite
        }
    }
}
