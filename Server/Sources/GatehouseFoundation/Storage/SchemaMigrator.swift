import Logging
import SQLKit

/// Brings a database's schema up to date in one transaction under ``DatabaseLock/migrations``, so nodes
/// that start together migrate exactly once and a failed migration leaves the schema as it was.
package struct SchemaMigrator {
    package let database: any Database
    package let logger: Logger
    package var migrations: [Migration] = SchemaMigrations.all

    /// - Returns: the versions applied now.
    @discardableResult
    package func migrate() async throws -> [Int] {
        let migrations = self.migrations
        let now = UnixClock.system.now()
        let database = self.database
        let (applied, fresh) = try await database.transaction { sql in
            try await database.lock(.migrations, in: sql)
            try await sql.raw(
                """
                CREATE TABLE IF NOT EXISTS gatehouse_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                )
                """
            ).run()
            let existing = try await Self.appliedVersions(in: sql)
            if let newest = existing.max(), let known = migrations.map(\.version).max(), newest > known {
                throw DatabaseError.newerSchema(newest)
            }
            var appliedNow: [Int] = []
            for migration in migrations where !existing.contains(migration.version) {
                for statement in migration.statements {
                    try await sql.raw(SQLQueryString(statement)).run()
                }
                try await sql.raw(
                    """
                    INSERT INTO gatehouse_migrations (version, name, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: now))
                    """
                ).run()
                appliedNow.append(migration.version)
            }
            return (appliedNow, existing.isEmpty)
        }
        // A fresh database gets the whole schema at once: one line says so; an upgrade lists what it applied.
        if fresh, let newest = applied.max() {
            logger.info("Created the database schema", metadata: ["version": "\(newest)"])
        } else {
            for migration in migrations where applied.contains(migration.version) {
                logger.info("Applied database migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
            }
        }
        return applied
    }

    package func appliedVersions() async throws -> Set<Int> {
        try await database.read { sql in try await Self.appliedVersions(in: sql) }
    }

    package static func appliedVersions(in sql: any SQLDatabase) async throws -> Set<Int> {
        let rows = try await sql.raw("SELECT version FROM gatehouse_migrations").all()
        return Set(try rows.map { try $0.decode(column: "version", as: Int.self) })
    }
}
