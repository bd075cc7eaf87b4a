import Foundation
import Logging
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Schema migrations")
struct SchemaMigratorTests {
    @Test("a fresh database logs one line naming the schema's version; an upgrade lists each migration it applied")
    func logsWhatAnOperatorNeeds() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("migrations.sqlite").path
        let database = try await SQLiteStoreDatabase.open(path: path, logger: TestServer.logger)
        let all = SchemaMigrations.all
        let latest = try #require(all.map(\.version).max())

        // A database made by an earlier release: every migration but the last two.
        let (earlierLogger, earlierLog) = RecordingLogHandler.logger()
        let older = Array(all.dropLast(2))
        #expect(try await SchemaMigrator(database: database, logger: earlierLogger, migrations: older).migrate() == older.map(\.version))
        #expect(earlierLog.named("Created the database schema").map { $0.metadata["version"]?.description } == ["\(latest - 2)"])
        #expect(earlierLog.named("Applied database migration").isEmpty)

        // This release upgrades it: the two it lacks, one line each, with their names.
        let (logger, log) = RecordingLogHandler.logger()
        #expect(try await SchemaMigrator(database: database, logger: logger).migrate() == [latest - 1, latest])
        #expect(log.named("Created the database schema").isEmpty)
        #expect(log.named("Applied database migration").map { $0.metadata["version"]?.description } == ["\(latest - 1)", "\(latest)"])
        #expect(log.named("Applied database migration").last?.metadata["name"]?.description == all.last?.name)

        // Nothing left to do: nothing logged.
        let (quietLogger, quietLog) = RecordingLogHandler.logger()
        #expect(try await SchemaMigrator(database: database, logger: quietLogger).migrate().isEmpty)
        #expect(quietLog.all.filter { $0.message.contains("migration") || $0.message.contains("schema") }.isEmpty)
        try await database.close()
    }
}
