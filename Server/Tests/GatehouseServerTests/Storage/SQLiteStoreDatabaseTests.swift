import Foundation
import Logging
import SQLKit
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("The embedded SQLite engine")
struct SQLiteStoreDatabaseTests {
    private struct Note: Codable, Sendable, Equatable {
        var id: Int
        var body: String
        var weight: Double?
        var payload: Data?
    }

    /// A path for a database file in a folder of its own, removed afterwards.
    private func withDatabasePath(_ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await body(folder.appendingPathComponent("test.sqlite").path)
    }

    /// Opens the database at `path` and creates the `notes` table the tests write.
    private func openNotes(at path: String) async throws -> SQLiteStoreDatabase {
        let database = try await SQLiteStoreDatabase.open(path: path, logger: Logger(label: "test"))
        try await database.transaction { sql in
            try await sql.raw("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE, weight REAL, payload BLOB)").run()
        }
        return database
    }

    private func withDatabase(_ body: (String, SQLiteStoreDatabase) async throws -> Void) async throws {
        try await withDatabasePath { path in
            let database = try await openNotes(at: path)
            do {
                try await body(path, database)
                try await database.close()
            } catch {
                try? await database.close()
                throw error
            }
        }
    }

    @Test("the database file and its -wal and -shm files are readable by the server's user only")
    func filesAreOwnerOnly() async throws {
        try await withDatabasePath { path in
            let database = try await openNotes(at: path)
            try await database.transaction { sql in try await sql.raw("INSERT INTO notes (id, body) VALUES (1, 'x')").run() }
            for file in [path, path + "-wal", path + "-shm"] {
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)
                #expect(mode.intValue & 0o777 == 0o600, "\(file) is \(String(mode.intValue, radix: 8))")
            }
            try await database.close()
        }
    }

    @Test("values of every storage class come back as they went in, through SQLKit's builders")
    func roundTrip() async throws {
        try await withDatabase { _, database in
            let notes = [
                Note(id: 1, body: "naïve café ☕️ with a \0 inside", weight: 2.5, payload: Data([0, 1, 254, 255])),
                Note(id: 2, body: "", weight: nil, payload: nil),
            ]
            try await database.transaction { sql in
                for note in notes { try await sql.insert(into: "notes").model(note).run() }
            }
            let read = try await database.read { sql in
                try await sql.select().column("*").from("notes").orderBy("id").all(decoding: Note.self)
            }
            #expect(read == notes)
            let count = try await database.read { sql in
                try await sql.raw("SELECT COUNT(*) AS n FROM notes WHERE weight IS NULL").first(decodingColumn: "n", as: Int.self)
            }
            #expect(count == 1)
        }
    }

    @Test("a cached statement runs again without being compiled again; a wrong number of values is refused")
    func statementsStayCompiled() throws {
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        defer { handle.close() }
        // Shaped like the userinfo endpoint's read: SQLite's planner looks at the bound values of this join,
        // which made clearing the bindings after each run expire the statement (19 recompilations in 20 runs).
        try handle.execute("CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL)", [])
        try handle.execute("CREATE TABLE tokens (hash TEXT PRIMARY KEY, user_id TEXT REFERENCES users(id), expires INTEGER NOT NULL)", [])
        try handle.execute("INSERT INTO users (id, name) VALUES ('u1', 'Ada')", [])
        let insert = "INSERT INTO tokens (hash, user_id, expires) VALUES (?1, 'u1', ?2)"
        let select = """
            SELECT t.expires AS token_expires, u.* FROM tokens t LEFT JOIN users u ON u.id = t.user_id
            WHERE t.hash = ?1 AND t.expires > ?2
            """
        for id in 1...20 {
            try handle.execute(insert, [.text("hash \(id)"), .integer(1000 + id)])
            var found: [String] = []
            try handle.execute(select, [.text("hash \(id)"), .integer(1000 + id - 1)]) { row in
                found.append(try row.decode(column: "name", as: String.self))
            }
            #expect(found == ["Ada"])
        }
        let statistics = try #require(handle.statistics(of: select))
        #expect(statistics.runs == 20)
        #expect(statistics.recompilations == 0)
        #expect(throws: SQLiteStatementError.self) { try handle.execute(select, [.text("hash 1")]) }
        #expect(throws: SQLiteStatementError.self) { try handle.execute(select, [.text("hash 1"), .integer(0), .integer(1)]) }
    }

    @Test("committed pages reach the database file by background checkpoints, not by the writer's own")
    func backgroundCheckpoints() async throws {
        try await withDatabase { path, database in
            let checkpointer = try #require(database.checkpointer)
            let row = String(repeating: "x", count: 1000)
            let clock = ContinuousClock()
            // Generous: with the whole suite running in parallel on two cores, each await here can wait long
            // for a cooperative thread (a fresh clone's CI run managed 169 single-row commits in 20 s).
            let deadline = clock.now + .seconds(120)
            var id = 0
            var commits = 0
            // About 2 MB of rows in ten-row commits, far below the writer's own threshold (10,000 pages, about 40 MB).
            while id < 2000 || checkpointer.completedCheckpoints < 2, clock.now < deadline {
                let first = id + 1
                id += 10
                try await database.transaction { [id] sql in
                    for rowID in first...id {
                        try await sql.raw("INSERT INTO notes (id, body) VALUES (\(bind: rowID), \(bind: "\(rowID) \(row)"))").run()
                    }
                }
                commits += 1
                if commits % 20 == 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(checkpointer.completedCheckpoints >= 2)
            let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(fileSize > 1_000_000, "the database file holds \(fileSize) bytes after \(commits) commits of \(id) rows")
        }
    }

    @Test("once closed, no connection of the database holds the file, even one that was checkpointing")
    func closeLeavesTheFileFree() async throws {
        try await withDatabasePath { path in
            let row = String(repeating: "x", count: 4000)
            // Each round's commits start a background checkpoint; closing right after catches some of them running.
            for round in 0..<20 {
                let database = try await SQLiteStoreDatabase.open(path: path, logger: Logger(label: "test"))
                try await database.transaction { sql in
                    try await sql.raw("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)").run()
                    for index in 0..<50 {
                        try await sql.raw("INSERT INTO notes (id, body) VALUES (\(bind: round * 50 + index), \(bind: row))").run()
                    }
                }
                try await database.close()
                // Another process that does not wait for locks: an exclusive lock is free at once.
                let other = try SQLiteConnectionHandle(path: path)
                other.setBusyTimeout(milliseconds: 0)
                #expect(throws: Never.self, "round \(round)") {
                    try other.execute("BEGIN EXCLUSIVE", [])
                    try other.execute("COMMIT", [])
                }
                other.close()
            }
        }
    }

    @Test("a failed statement rolls the whole transaction back and says what SQLite said")
    func rollbackAndError() async throws {
        try await withDatabase { _, database in
            await #expect(throws: SQLiteStatementError.self) {
                try await database.transaction { sql in
                    try await sql.insert(into: "notes").model(Note(id: 1, body: "one")).run()
                    try await sql.insert(into: "notes").model(Note(id: 2, body: "one")).run()
                }
            }
            let count = try await database.read { sql in try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self) }
            #expect(count == 0)
            let duplicate = await #expect(throws: SQLiteStatementError.self) {
                try await database.transaction { sql in
                    try await sql.insert(into: "notes").model(Note(id: 1, body: "one")).run()
                    try await sql.insert(into: "notes").model(Note(id: 1, body: "two")).run()
                }
            }
            #expect(duplicate?.description.contains("UNIQUE constraint failed: notes.id") == true)
            // The log says it with SQLite's result code and its name, not the error's type alone.
            #expect(DatabaseFailure.reason(of: try #require(duplicate)) == "SQLite error 1555 (constraint failed): UNIQUE constraint failed: notes.id")
        }
    }

    @Test("more than one statement in one call is refused instead of running only the first")
    func oneStatementPerCall() async throws {
        try await withDatabase { _, database in
            await #expect(throws: SQLiteStatementError.self) {
                try await database.transaction { sql in
                    try await sql.raw("INSERT INTO notes (id, body) VALUES (1, 'a'); INSERT INTO notes (id, body) VALUES (2, 'b')").run()
                }
            }
            let count = try await database.read { sql in try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self) }
            #expect(count == 0)
        }
    }

    @Test("readers see only committed data while a write transaction is open")
    func readersDoNotSeeOpenTransactions() async throws {
        try await withDatabase { _, database in
            let seenInside = try await database.transaction { sql in
                try await sql.insert(into: "notes").model(Note(id: 1, body: "pending")).run()
                return try await database.read { reader in
                    try await reader.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self)
                }
            }
            #expect(seenInside == 0)
            let after = try await database.read { sql in try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self) }
            #expect(after == 1)
        }
    }

    @Test("concurrent transactions from one process run one at a time and all commit")
    func concurrentTransactions() async throws {
        try await withDatabase { _, database in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await database.transaction { sql in
                            let count = try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self) ?? 0
                            try await sql.insert(into: "notes").model(Note(id: count + 1, body: "note \(index)")).run()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let ids = try await database.read { sql in try await sql.raw("SELECT id FROM notes ORDER BY id").all(decodingColumn: "id", as: Int.self) }
            #expect(ids == Array(1...50))
        }
    }

    @Test("closing commits what was queued, refuses the rest whole, and says the database was closed")
    func closeDrainsThenRefuses() async throws {
        try await withDatabasePath { path in
            let database = try await openNotes(at: path)
            // Close while these are still arriving: each either commits (and stays committed) or is refused whole.
            let racing = (1...20).map { index in
                Task { () -> Bool in
                    do {
                        try await database.transaction { sql in try await sql.insert(into: "notes").model(Note(id: index, body: "note \(index)")).run() }
                        return true
                    } catch let error as DatabaseError {
                        #expect(error == .closed)
                        return false
                    }
                }
            }
            try await database.close()
            var committed = 0
            for task in racing where try await task.value { committed += 1 }
            await #expect(throws: DatabaseError.closed) {
                try await database.transaction { sql in try await sql.raw("DELETE FROM notes").run() }
            }
            let reopened = try await SQLiteStoreDatabase.open(path: path, logger: Logger(label: "test"))
            let count = try await reopened.read { sql in try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self) }
            try await reopened.close()
            #expect(count == committed)
        }
    }

    @Test("a read running while the database closes finishes, then its connection closes too, and later reads are refused")
    func readAcrossClose() async throws {
        try await withDatabasePath { path in
            let database = try await openNotes(at: path)
            try await database.transaction { sql in try await sql.insert(into: "notes").model(Note(id: 1, body: "kept")).run() }
            let started = AsyncStream<Void>.makeStream()
            let resume = AsyncStream<Void>.makeStream()
            let reading = Task {
                try await database.read { sql in
                    started.continuation.yield()
                    for await _ in resume.stream { break }
                    return try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self)
                }
            }
            for await _ in started.stream { break }
            try await database.close()
            resume.continuation.yield()
            #expect(try await reading.value == 1)
            // SQLite removes the write-ahead log when the file's last connection closes: none was kept open.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            await #expect(throws: DatabaseError.closed) {
                try await database.read { sql in try await sql.raw("SELECT 1 AS n").first(decodingColumn: "n", as: Int.self) }
            }
        }
    }

    private struct Refused: Error, Equatable { let index: Int }

    @Test("of concurrent transactions committed together, one that throws rolls back only its own writes")
    func failuresStayIsolated() async throws {
        try await withDatabase { _, database in
            let outcomes = try await withThrowingTaskGroup(of: (Int, Result<String, Refused>).self) { group in
                for index in 0..<60 {
                    group.addTask {
                        do {
                            let answer = try await database.transaction { sql -> String in
                                try await sql.insert(into: "notes").model(Note(id: index, body: "note \(index)")).run()
                                // A pause inside the transaction lets the other callers queue up behind it.
                                try await Task.sleep(for: .milliseconds(1))
                                if index % 3 == 0 { throw Refused(index: index) }
                                return "stored \(index)"
                            }
                            return (index, .success(answer))
                        } catch let refused as Refused {
                            return (index, .failure(refused))
                        }
                    }
                }
                return try await group.reduce(into: [Int: Result<String, Refused>]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<60 {
                #expect(outcomes[index] == (index % 3 == 0 ? .failure(Refused(index: index)) : .success("stored \(index)")))
            }
            let ids = try await database.read { sql in try await sql.raw("SELECT id FROM notes ORDER BY id").all(decodingColumn: "id", as: Int.self) }
            #expect(ids == (0..<60).filter { $0 % 3 != 0 })
            // The savepoint path ran: some bodies shared a commit.
            #expect(database.writes.bodiesInSharedCommits > 0)
        }
    }

    @Test("a transaction waits while another process holds the write lock, then commits")
    func waitsForAnotherProcess() async throws {
        try await withDatabase { path, database in
            // A second connection stands in for another process (the CLI) in the middle of a write.
            let other = try await SQLiteStoreDatabase.open(path: path, logger: Logger(label: "other"))
            let holding = AsyncStream<Void>.makeStream()
            async let otherWrite: Void = other.transaction { sql in
                try await sql.insert(into: "notes").model(Note(id: 1, body: "from the other process")).run()
                holding.continuation.yield()
                try await Task.sleep(for: .milliseconds(300))
            }
            for await _ in holding.stream { break }
            // The other transaction still holds the lock (it sleeps before committing); this one can only begin
            // once that one has committed, so it must find the other's row already there.
            let seenAtStart = try await database.transaction { sql in
                let count = try await sql.raw("SELECT COUNT(*) AS n FROM notes").first(decodingColumn: "n", as: Int.self)
                try await sql.insert(into: "notes").model(Note(id: 2, body: "from the server")).run()
                return count
            }
            try await otherWrite
            try await other.close()
            #expect(seenAtStart == 1)
            let bodies = try await database.read { sql in try await sql.raw("SELECT body FROM notes ORDER BY id").all(decodingColumn: "body", as: String.self) }
            #expect(bodies == ["from the other process", "from the server"])
        }
    }
}
