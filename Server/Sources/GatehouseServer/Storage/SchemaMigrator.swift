import Logging
import SQLKit

/// Applies the migrations a database does not have yet, each in its own transaction.
struct SchemaMigrator {
    let database: any Database
    let logger: Logger
    var migrations: [Migration] = SchemaMigrations.all

    func migrate() async throws {
        try await database.transaction { sql in
            try await sql.raw("""
                CREATE TABLE IF NOT EXISTS gatehouse_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                )
                """).run()
        }
        let applied = try await appliedVersions()
        if let newest = applied.max(), let known = migrations.map(\.version).max(), newest > known {
            throw DatabaseError.newerSchema(newest)
        }
        for migration in migrations where !applied.contains(migration.version) {
            let now = Int64(UnixClock.system.now())
            try await database.transaction { sql in
                for statement in migration.statements {
                    try await sql.raw(SQLQueryString(statement)).run()
                }
                try await sql.raw("""
                    INSERT INTO gatehouse_migrations (version, name, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: now))
                    """).run()
            }
            logger.info("Applied database migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
        }
    }

    func appliedVersions() async throws -> Set<Int> {
        let rows = try await database.read { sql in
            try await sql.raw("SELECT version FROM gatehouse_migrations").all()
        }
        return Set(try rows.map { try $0.decode(column: "version", as: Int.self) })
    }
}
