import SQLKit

/// What each table holds: its rows, the oldest row's time, and (where the engine tells) its size on disk — for
/// operators watching a database level off once the sweep runs (`gatehouse db stats`).
public struct DatabaseStatistics: Sendable, Encodable {
    /// One table's figures.
    public struct Table: Sendable, Encodable {
        /// The table's name.
        public var name: String
        /// How many rows it holds.
        public var rows: Int
        /// The oldest row's time (Unix seconds) by the table's time column; `nil` when empty or without one.
        public var oldest: Int64?
        /// Bytes of the table and its indexes; `nil` where the engine does not tell (SQLite without `dbstat`).
        public var bytes: Int64?
    }

    /// Every table Gatehouse keeps, in the copier's order (a table after those it references).
    public var tables: [Table]
    /// The whole database's size in bytes.
    public var totalBytes: Int64?

    package enum CodingKeys: String, CodingKey {
        case tables
        case totalBytes = "total_bytes"
    }

    /// The columns that say when a row was made, in the order they are looked for.
    package static let timeColumns = ["created_at", "occurred_at", "last_attempt_at", "revoked_at", "updated_at"]

    /// The figures of every table Gatehouse keeps (as its schema lists them), read from `database`.
    public static func gather(from database: any Database, location: DatabaseLocation) async throws -> DatabaseStatistics {
        let postgres = if case .postgres = location { true } else { false }
        let engine = database.engine
        return try await database.read { sql in
            var tables: [Table] = []
            for table in try await SchemaCatalog.read(sql, engine: engine).tables {
                let names = Set(table.columns.map(\.name))
                let time = timeColumns.first(where: names.contains)
                let row = try await sql.raw(
                    "SELECT COUNT(*) AS n\(unsafeRaw: time.map { ", MIN(\($0)) AS oldest" } ?? "") FROM \(unsafeRaw: table.name)"
                ).first()
                let bytes: Int64? =
                    postgres
                    ? try await sql.raw("SELECT pg_total_relation_size(\(bind: table.name)) AS bytes").first()?.decode(column: "bytes", as: Int64.self)
                    : try? await sql.raw("SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name = \(bind: table.name) OR tbl_name = \(bind: table.name)")
                        .first()?.decode(column: "bytes", as: Int64?.self)
                tables.append(
                    Table(
                        name: table.name, rows: try row?.decode(column: "n", as: Int.self) ?? 0,
                        oldest: time == nil ? nil : try row?.decode(column: "oldest", as: Int64?.self), bytes: bytes))
            }
            let total: Int64? =
                postgres
                ? try await sql.raw("SELECT pg_database_size(current_database()) AS bytes").first()?.decode(column: "bytes", as: Int64.self)
                : try await sql.raw("SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()").first()?
                    .decode(column: "bytes", as: Int64.self)
            return DatabaseStatistics(tables: tables, totalBytes: total)
        }
    }
}
