import SQLiteKit
import SQLiteNIO
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("SQLite binds")
struct SQLiteHandleDatabaseTests {
    @Test("strings, integers and optionals bind as SQLiteKit's encoder binds them, every other type through the encoder")
    func bindsLikeSQLiteKit() throws {
        let values: [any Encodable & Sendable] = [
            "text", "", "café ✓", 42, 0, Int64.max, Int64.min, -1 as Int64,
            nil as String?, "x" as String?, 7 as Int64?, nil as Int64?, 3 as Int?, nil as Int?,
            true, 1.5, nil as Bool?, false as Bool?, ["a", "b"],
        ]
        let encoder = SQLiteDataEncoder()
        for value in values {
            #expect(try SQLiteHandleDatabase.sqliteData(value) == encoder.encode(value), "\(value)")
        }
    }
}
