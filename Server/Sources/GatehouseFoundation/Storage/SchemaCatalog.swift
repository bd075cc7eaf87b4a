import SQLKit

/// The tables Gatehouse keeps and their columns, read from a live database's schema: what the copier copies and the
/// statistics count, so that a table or column a migration adds is copied without a list of its own to update.
package struct SchemaCatalog: Sendable {
    /// How a column's values are read and written: every column of the schema is text or an integer.
    package enum ColumnType: Sendable, Equatable { case text, integer }

    package struct Column: Sendable, Equatable {
        package let name: String
        package let type: ColumnType
    }

    package struct Table: Sendable, Equatable {
        package let name: String
        package let columns: [Column]
        /// The tables its foreign keys point at.
        package let references: [String]
    }

    /// Every table, in an order that satisfies foreign keys: a table comes after the tables it references.
    package let tables: [Table]

    /// The migrator's own record of applied migrations: the target writes its own.
    package static let bookkeeping: Set<String> = ["gatehouse_migrations"]

    /// Reads the schema of the database `sql` is connected to, an `engine` database.
    package static func read(_ sql: any SQLDatabase, engine: DatabaseEngine) async throws -> SchemaCatalog {
        var tables: [Table] = []
        for name in try await tableNames(sql, engine: engine) where !bookkeeping.contains(name) {
            let columns = try await sql.raw(columnsQuery(of: name, engine: engine)).all().map { row in
                let name = try row.decode(column: "name", as: String.self)
                let declared = try row.decode(column: "type", as: String.self)
                guard let type = columnType(declared) else {
                    throw DatabaseError.corrupt("the column \(name) is of the type \(declared), which Gatehouse does not use")
                }
                return Column(name: name, type: type)
            }
            let references = try await sql.raw(referencesQuery(of: name, engine: engine)).all().map {
                try $0.decode(column: "referenced", as: String.self)
            }
            tables.append(Table(name: name, columns: columns, references: references))
        }
        return SchemaCatalog(tables: ordered(tables))
    }

    /// The table `name`, if the schema has it.
    package func table(_ name: String) -> Table? { tables.first { $0.name == name } }

    /// The tables in the order they were created (which the migrations made satisfy foreign keys), each moved after any
    /// table it references that a rebuild placed later.
    package static func ordered(_ tables: [Table]) -> [Table] {
        var placed: [Table] = []
        var waiting = tables
        while !waiting.isEmpty {
            let names = Set(placed.map(\.name))
            let ready = waiting.firstIndex { table in table.references.allSatisfy { $0 == table.name || names.contains($0) } }
            // A cycle (none in Gatehouse's schema) keeps the remaining order rather than looping.
            placed.append(waiting.remove(at: ready ?? 0))
        }
        return placed
    }

    package static func columnType(_ declared: String) -> ColumnType? {
        switch declared.lowercased() {
        case "text", "character varying", "varchar": .text
        case "integer", "bigint", "smallint", "int", "int8", "int4": .integer
        default: nil
        }
    }

    /// The names of every table in the database, bookkeeping included, in the order they were created.
    package static func tableNames(_ sql: any SQLDatabase, engine: DatabaseEngine) async throws -> [String] {
        let query: SQLQueryString =
            switch engine {
            case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            case .postgresql:
                """
                SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.oid
                """
            }
        return try await sql.raw(query).all().map { try $0.decode(column: "name", as: String.self) }
    }

    private static func columnsQuery(of table: String, engine: DatabaseEngine) -> SQLQueryString {
        switch engine {
        case .sqlite: "SELECT name, type FROM pragma_table_info(\(bind: table)) ORDER BY cid"
        case .postgresql:
            """
            SELECT column_name::text AS name, data_type::text AS type FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(bind: table) ORDER BY ordinal_position
            """
        }
    }

    private static func referencesQuery(of table: String, engine: DatabaseEngine) -> SQLQueryString {
        switch engine {
        case .sqlite: "SELECT DISTINCT \"table\" AS referenced FROM pragma_foreign_key_list(\(bind: table))"
        case .postgresql:
            """
            SELECT DISTINCT referenced.relname::text AS referenced FROM pg_constraint k
            JOIN pg_class owner ON owner.oid = k.conrelid JOIN pg_class referenced ON referenced.oid = k.confrelid
            JOIN pg_namespace n ON n.oid = owner.relnamespace
            WHERE k.contype = 'f' AND n.nspname = current_schema() AND owner.relname = \(bind: table)
            """
        }
    }
}
