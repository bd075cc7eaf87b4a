import Foundation
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Backups")
struct DatabaseBackupTests {
    @Test(
        "a backup of a serving database is sound, readable by its owner only, and restores row for row into an empty database",
        arguments: TestEngine.available)
    func backupAndRestore(engine: TestEngine) async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("backup.sqlite").path
        try await TestServer.withServer(engine: engine) { server in
            for name in ["ada", "bo", "cy"] { _ = try await FlowJourneyTests.addUser(server, name) }
            // Writes go on while the copy is taken: the copy is whole whatever moment it caught.
            let writer = Task {
                for index in 0..<40 { _ = try await FlowJourneyTests.addUser(server, "w\(index)") }
            }
            let backup = try await DatabaseBackup.write(server.database, to: path, logger: TestServer.logger)
            try await writer.value
            #expect(backup.isSound, "\(backup.problems)")
            #expect(backup.schemaVersion == DatabaseOpener.latestSchemaVersion)
            let users = try #require(backup.rows(of: "users"))
            #expect((3...43).contains(users))
            #expect(backup.rows(of: "signing_keys") == 2)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            // A second backup never overwrites the first.
            await #expect(throws: BackupError.self) { try await DatabaseBackup.write(server.database, to: path, logger: TestServer.logger) }
        }
        // Into a fresh database of the same engine: every table holds the backup's rows.
        try await TestServer.withServer(engine: engine) { fresh in
            // The fresh server made its own keys; a restore goes into an empty database.
            await #expect(throws: DatabaseError.self) { try await DatabaseBackup.restore(from: path, into: fresh.database, logger: TestServer.logger) }
        }
        let backup = try await DatabaseOpener.with(.sqlite(path: path), logger: TestServer.logger, migrate: false) { try await DatabaseVerification.verify($0) }
        let target: DatabaseLocation =
            engine == .postgres
            ? .postgres(
                url: try await TestEngine.createPostgresDatabase("gatehouse_restore_" + SecureRandom.bytes(6).map { String(format: "%02x", $0) }.joined()))
            : .sqlite(path: folder.appendingPathComponent("restored.sqlite").path)
        let restored = try await DatabaseOpener.with(target, logger: TestServer.logger) {
            try await DatabaseBackup.restore(from: path, into: $0, logger: TestServer.logger)
        }
        #expect(restored.isSound)
        #expect(restored.tables == backup.tables)
        if case .postgres(let url) = target, let name = URLComponents(string: url)?.path.dropFirst() {
            try await TestEngine.dropPostgresDatabase(String(name))
        }
    }

    @Test("a damaged backup fails its check and is not restored")
    func damagedBackup() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("backup.sqlite").path
        try await TestServer.withServer { server in
            for index in 0..<200 { _ = try await FlowJourneyTests.addUser(server, "user\(index)") }
            _ = try await DatabaseBackup.write(server.database, to: path, logger: TestServer.logger)
        }
        // Overwrite two pages in the middle of the file with noise, as a failing disk might.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        let pageSize: UInt64 = 4096
        try handle.seek(toOffset: (size / pageSize / 2) * pageSize)
        try handle.write(contentsOf: Data((0..<(2 * Int(pageSize))).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        try handle.close()

        // The check finds it (or SQLite refuses to read on), and nothing of it is restored.
        let found: Bool
        do {
            found = try await !DatabaseOpener.with(.sqlite(path: path), logger: TestServer.logger, migrate: false) { try await DatabaseVerification.verify($0) }
                .isSound
        } catch {
            found = true
        }
        #expect(found)
        let target = folder.appendingPathComponent("restored.sqlite").path
        let verification = try await DatabaseOpener.with(.sqlite(path: target), logger: TestServer.logger) { database in
            await #expect(throws: (any Error).self) { try await DatabaseBackup.restore(from: path, into: database, logger: TestServer.logger) }
            return try await DatabaseVerification.verify(database)
        }
        // Nothing was written into the target.
        #expect(verification.rows(of: "users") == 0 && verification.rows(of: "signing_keys") == 0)
    }

    @Test("a file that is not a Gatehouse database is reported so")
    func notGatehouse() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let verification = try await DatabaseOpener.with(
            .sqlite(path: folder.appendingPathComponent("other.sqlite").path), logger: TestServer.logger, migrate: false
        ) {
            try await DatabaseVerification.verify($0)
        }
        #expect(!verification.isSound)
        #expect(verification.problems == ["It holds no Gatehouse schema."])
    }
}
