import SQLKit

/// Which rows of a table nothing can use any more, declared by the store that owns the table beside its writes
/// (each store's `retention(at:)`); housekeeping (`ExpiredRowSweep`) deletes them in short batches.
package struct RetentionRule: Sendable {
    /// The table.
    package let table: String
    /// The columns that name a row.
    package let key: String
    /// Which rows may go.
    package let condition: SQLQueryString

    package init(table: String, key: String, condition: SQLQueryString) {
        self.table = table
        self.key = key
        self.condition = condition
    }

    package static let day: Int64 = 86_400
    package static let hour: Int64 = 3_600
}
