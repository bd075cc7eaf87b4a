import SQLKit

/// What a check of a whole database found: whether its pages and references hold, the schema version it is at, and the
/// rows of each table, read in one snapshot (`gatehouse db verify`; `gatehouse backup` and `restore` run it too).
public struct DatabaseVerification: Sendable, Encodable, Equatable {
    /// One table and its rows.
    public struct Table: Sendable, Encodable, Equatable {
        public var name: String
        public var rows: Int
    }

    /// The newest migration the database has.
    public var schemaVersion: Int
    /// Every table Gatehouse keeps, in the copier's order, with its rows.
    public var tables: [Table]
    /// What is wrong, one sentence each; empty for a sound database.
    public var problems: [String]

    /// Whether nothing is wrong.
    public var isSound: Bool { problems.isEmpty }

    package enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case tables, problems
        case isSound = "sound"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(tables, forKey: .tables)
        try container.encode(problems, forKey: .problems)
        try container.encode(isSound, forKey: .isSound)
    }

    /// The rows of `table`, or `nil` when the database has no such table.
    public func rows(of table: String) -> Int? { tables.first { $0.name == table }?.rows }

    /// Checks `database` whole, in one snapshot.
    ///
    /// SQLite reads every page (`PRAGMA integrity_check`) and every reference (`PRAGMA foreign_key_check`); PostgreSQL
    /// checks its own pages as it reads them, so every table is read through and every constraint must be validated.
    /// Both must hold the migrations' bookkeeping at a version this Gatehouse knows, and the tables it expects.
    public static func verify(_ database: any Database) async throws -> DatabaseVerification {
        let engine = database.engine
        return try await database.snapshot { sql in
            var problems: [String] = []
            guard try await SchemaCatalog.tableNames(sql, engine: engine).contains("gatehouse_migrations") else {
                return DatabaseVerification(schemaVersion: 0, tables: [], problems: ["It holds no Gatehouse schema."])
            }
            let versions = try await SchemaMigrator.appliedVersions(in: sql)
            let version = versions.max() ?? 0
            let latest = SchemaMigrations.all.map(\.version).max() ?? 0
            if version > latest {
                problems.append("Its schema is at version \(version), newer than this Gatehouse (\(latest)) knows; upgrade Gatehouse.")
            }
            let missing = SchemaMigrations.all.map(\.version).filter { $0 <= version && !versions.contains($0) }
            if !missing.isEmpty {
                problems.append("Migrations \(missing.map(String.init).joined(separator: ", ")) are missing from its record.")
            }
            problems += try await pageProblems(sql, engine: engine)
            var tables: [Table] = []
            for table in try await SchemaCatalog.read(sql, engine: engine).tables {
                let count = try await sql.raw("SELECT COUNT(*) AS n FROM \(unsafeRaw: table.name)").first()?.decode(column: "n", as: Int.self)
                tables.append(Table(name: table.name, rows: count ?? 0))
            }
            // Every table the migrations it records have made: a database (or a backup) that lost one is not whole.
            let present = Set(try await SchemaCatalog.tableNames(sql, engine: engine))
            for expected in SchemaMigrations.expectedTables(at: version).sorted() where !present.contains(expected) {
                problems.append("The table \(expected) is missing.")
            }
            return DatabaseVerification(schemaVersion: version, tables: tables, problems: problems)
        }
    }

    /// What the engine's own checks report, in words.
    private static func pageProblems(_ sql: any SQLDatabase, engine: DatabaseEngine) async throws -> [String] {
        switch engine {
        case .sqlite:
            let integrity = try await sql.raw("PRAGMA integrity_check").all().map { try $0.decode(column: "integrity_check", as: String.self) }
            let references = try await sql.raw("PRAGMA foreign_key_check").all().map { row in
                let table = try row.decode(column: "table", as: String.self)
                let parent = try row.decode(column: "parent", as: String.self)
                return "A row of \(table) refers to a row of \(parent) that does not exist."
            }
            return integrity.filter { $0 != "ok" }.map { "SQLite's integrity check: \($0)" } + references
        case .postgresql:
            return try await sql.raw(
                """
                SELECT conrelid::regclass::text AS owner, conname AS name FROM pg_constraint
                WHERE NOT convalidated AND connamespace = current_schema()::regnamespace
                """
            ).all().map { row in
                "The constraint \(try row.decode(column: "name", as: String.self)) of \(try row.decode(column: "owner", as: String.self)) is not validated."
            }
        }
    }
}
