import SQLKit
import SQLiteKit
import SQLiteNIO

/// The column names of a prepared statement, with a lookup table built once per statement.
package struct SQLiteRowColumns: Sendable {
    package let names: [String]
    package let offsets: [String: Int]

    package init(names: [String]) {
        self.names = names
        // A name that appears twice (e.g. two tables' `id`) means the first, as in SQLiteNIO.
        offsets = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// One result row, read through SQLKit's `SQLRow` with SQLiteKit's decoder (the same rules SQLiteNIO's rows follow).
package struct SQLiteRowValues: SQLRow {
    package let columns: SQLiteRowColumns
    package let values: [SQLiteData]

    /// One decoder for every row: each `SQLiteDataDecoder()` allocates a `JSONDecoder`.
    private static let decoder = SQLiteDataDecoder()

    package var allColumns: [String] { columns.names }

    package func contains(column: String) -> Bool { columns.offsets[column] != nil }

    package func decodeNil(column: String) throws -> Bool {
        guard let offset = columns.offsets[column] else { return true }
        return values[offset] == .null
    }

    package func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let offset = columns.offsets[column] else {
            throw DecodingError.keyNotFound(SQLiteColumnKey(column), .init(codingPath: [], debugDescription: "No column named \(column) in the result."))
        }
        // The column types every store reads, without the generic decoder (a few per row, on every request).
        switch values[offset] {
        case .text(let text) where D.self == String.self || D.self == String?.self:
            return text as! D
        case .integer(let integer) where D.self == Int64.self || D.self == Int64?.self:
            return Int64(integer) as! D
        case .integer(let integer) where D.self == Int.self || D.self == Int?.self:
            return Int(integer) as! D
        case .null where D.self == String?.self:
            return String?.none as! D
        case .null where D.self == Int64?.self:
            return Int64?.none as! D
        default:
            return try Self.decoder.decode(D.self, from: values[offset])
        }
    }
}

private struct SQLiteColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
