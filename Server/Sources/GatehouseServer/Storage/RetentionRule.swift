import SQLKit

/// Which rows of a table nothing can use any more, declared by the store that owns the table beside its writes
/// (each store's `retention(at:)`); housekeeping (`ExpiredRowSweep`) deletes them in short batches.
struct RetentionRule: Sendable {
    /// The table.
    let table: String
    /// The columns that name a row.
    let key: String
    /// Which rows may go.
    let condition: SQLQueryString

    static let day: Int64 = 86_400
    static let hour: Int64 = 3_600
}
