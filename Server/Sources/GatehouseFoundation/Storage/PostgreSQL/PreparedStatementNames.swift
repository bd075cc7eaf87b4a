import NIOConcurrencyHelpers

/// The names under which a process's SQL texts are prepared on PostgreSQL connections: one per text, shared by every
/// connection, so each connection parses and plans a statement once and then only binds and executes it.
///
/// Texts whose best plan depends on their values (``PreparedStatementSQLDatabase/plansOnce(_:binds:)``) get no name.
/// Bounded: past ``capacity`` texts (SQL built with variable parts), new texts run unprepared. A statement whose
/// prepared form broke on the server (a schema change altered its result, a preparation failed inside an aborted
/// transaction — PostgresNIO then remembers the failure for that name) gets a fresh name, at most
/// ``maximumRenames`` times; after that it runs unprepared.
package final class PreparedStatementNames: Sendable {
    private struct Entry {
        /// `nil` for a text planned each time.
        var number: Int?
        var renames = 0
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var next = 0
    }

    private let state = NIOLockedValueBox(State())
    package let capacity: Int
    package static let maximumRenames = 3

    package init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// The name to prepare `sql` (with `binds` values) under, or `nil` to run it unprepared.
    package func name(for sql: String, binds: Int) -> String? {
        state.withLockedValue { state in
            if let entry = state.entries[sql] {
                guard let number = entry.number, entry.renames <= Self.maximumRenames else { return nil }
                return "gatehouse_\(number)"
            }
            guard state.entries.count < capacity else { return nil }
            guard PreparedStatementSQLDatabase.plansOnce(sql, binds: binds) else {
                state.entries[sql] = Entry(number: nil)
                return nil
            }
            state.next += 1
            state.entries[sql] = Entry(number: state.next)
            return "gatehouse_\(state.next)"
        }
    }

    /// `sql`'s prepared form can no longer be used on some connection: later executions prepare it under a new name.
    package func renew(_ sql: String) {
        state.withLockedValue { state in
            guard var entry = state.entries[sql], entry.number != nil else { return }
            state.next += 1
            entry.number = state.next
            entry.renames += 1
            state.entries[sql] = entry
        }
    }

    /// How many texts have names.
    package var count: Int { state.withLockedValue { $0.entries.count } }
}
