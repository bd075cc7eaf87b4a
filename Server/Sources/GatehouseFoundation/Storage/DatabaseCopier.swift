import SQLKit

/// Copies everything Gatehouse stores from one database to another (e.g. SQLite to PostgreSQL), so an
/// operator can move without losing users, clients, keys or sessions. Its tables and columns are the source's, as its
/// schema describes them (``SchemaCatalog``), in an order that satisfies foreign keys.
///
/// Signing keys are copied still sealed: the target's servers need the same server secret.
public struct DatabaseCopier: Sendable {
    public let source: any Database
    public let target: any Database

    /// The bound parameters one insert carries at most.
    static let parametersPerStatement = 30_000

    public init(source: any Database, target: any Database) {
        self.source = source
        self.target = target
    }

    /// Copies every row in one target transaction, read in one snapshot of the source: a server may keep writing to it
    /// meanwhile (the copy is of the moment it began, every token with its user). Refuses a target that already holds
    /// users, clients or keys.
    /// - Returns: the number of rows copied per table, in copy order.
    public func copy() async throws -> [(table: String, rows: Int)] {
        let engine = source.engine
        let snapshot = try await source.snapshot { sql in
            var read: [(SchemaCatalog.Table, [SendableRow])] = []
            for table in try await SchemaCatalog.read(sql, engine: engine).tables {
                let columns = table.columns.map(\.name).joined(separator: ", ")
                let rows = try await sql.raw("SELECT \(unsafeRaw: columns) FROM \(unsafeRaw: table.name)").all()
                read.append(
                    (
                        table,
                        try rows.map { row in
                            SendableRow(
                                values: try table.columns.map { column -> any Encodable & Sendable in
                                    switch column.type {
                                    case .text: try row.decode(column: column.name, as: String?.self)
                                    case .integer: try row.decode(column: column.name, as: Int64?.self)
                                    }
                                })
                        }
                    ))
            }
            return read
        }
        let prepared = snapshot.map { table, rows in (table.name, table.columns.map(\.name), rows) }
        try await target.transaction { sql in
            for name in ["users", "clients", "signing_keys"] {
                if try await sql.raw("SELECT 1 AS present FROM \(unsafeRaw: name)").first() != nil {
                    throw DatabaseError.notEmpty(name)
                }
            }
            try await sql.raw("DELETE FROM attempt_counters").run()
            for (name, columns, rows) in prepared {
                // Many rows a statement (a row each made a 310,000-row restore into PostgreSQL take two minutes), within
                // the bound parameters both engines take (SQLite 32,766, PostgreSQL 65,535).
                let rowsPerStatement = max(1, min(500, Self.parametersPerStatement / max(1, columns.count)))
                for start in stride(from: 0, to: rows.count, by: rowsPerStatement) {
                    var insert = sql.insert(into: name).columns(columns)
                    for row in rows[start..<min(start + rowsPerStatement, rows.count)] { insert = insert.values(row.values) }
                    try await insert.run()
                }
            }
        }
        return snapshot.map { ($0.0.name, $0.1.count) }
    }
}

/// One row's values, handed across the transaction's boundary.
private struct SendableRow: @unchecked Sendable {
    // Every value is a String?, or Int64?, both Sendable; the existential array is not known to be.
    let values: [any Encodable & Sendable]
}
