import ArgumentParser
import Foundation
import GatehouseFoundation
import GatehouseServer
import Logging

/// `gatehouse migrate`: brings the database schema up to date without starting the server.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the database schema (serve does this too; safe to run on several nodes at once)."
    )
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try store.requireLocal()
        let configuration = try store.configuration()
        let logger = Logger.quiet
        let applied = try await DatabaseOpener.with(configuration.database, logger: logger, migrate: false) {
            try await DatabaseOpener.migrate($0, logger: logger)
        }
        let latest = DatabaseOpener.latestSchemaVersion
        print(
            applied.isEmpty
                ? "The schema is up to date (version \(latest))."
                : "Applied migrations \(applied.map(String.init).joined(separator: ", ")); the schema is at version \(latest).")
    }
}

/// `gatehouse copy`: moves everything from one database to another, e.g. SQLite to PostgreSQL.
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy users, clients, keys, sessions and tokens into an empty database (e.g. from SQLite to PostgreSQL).",
        discussion:
            "Signing keys stay encrypted with the server secret: start the servers of the target with the same secret (for a SQLite source, secret_file pointing at its DATABASE.secret)."
    )
    @Option(help: "The database to copy from (SQLite path or postgres:// URL).")
    var from: String
    @Option(help: "The database to copy into; it must hold no users, clients or keys.")
    var to: String

    func run() async throws {
        guard from != to else { throw CommandError("--from and --to name the same database.") }
        let logger = Logger.quiet
        let counts = try await DatabaseOpener.with(DatabaseLocation(parsing: from), logger: logger) { source in
            try await DatabaseOpener.with(DatabaseLocation(parsing: to), logger: logger) { target in
                try await DatabaseCopier(source: source, target: target).copy()
            }
        }
        var table = TextTable(headers: ["TABLE", "ROWS"])
        table.rows = counts.map { [$0.table, String($0.rows)] }
        print(table.render())
        print("Copied. Start the new servers with the same server secret as the old one.")
    }
}

extension Logger {
    /// A logger for commands: warnings and errors only.
    static var quiet: Logger {
        var logger = Logger(label: "gatehouse")
        logger.logLevel = .warning
        return logger
    }
}

/// `gatehouse db`: the database itself.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db", abstract: "Look at the database itself.", subcommands: [Stats.self, Verify.self])

    /// `gatehouse db stats`: rows, oldest row and size per table.
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rows, the oldest row's time and the size of each table (expired rows are swept every ten minutes by serve).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let statistics = try await store.withDatabase { configuration, database in
                try await DatabaseStatistics.gather(from: database, location: configuration.database)
            }
            if output.json { return try JSONOutput.print(statistics) }
            var table = TextTable(headers: ["TABLE", "ROWS", "OLDEST", "SIZE"])
            table.rows = statistics.tables.map { [$0.name, "\($0.rows)", Timestamp.format($0.oldest), $0.bytes.map(Self.size) ?? "-"] }
            print(table.render())
            if let total = statistics.totalBytes { print("Database: \(Self.size(total))") }
        }

        static func size(_ bytes: Int64) -> String {
            bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) : String(format: "%.1f KiB", Double(bytes) / 1024)
        }
    }
    /// `gatehouse db verify`: the engine's own checks, the schema's record and every table's rows, in one snapshot.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a database or a backup whole: its pages and references, its schema version, the rows of every table.",
            discussion: "Exits with 1 when a problem is found. Nothing is written, not even a migration."
        )
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            if case .sqlite(let path) = try store.location(), path != ":memory:", !FileManager.default.fileExists(atPath: path) {
                throw CommandError("There is no database at \(path).")
            }
            let verification = try await store.withLocation(migrate: false) { _, database in try await DatabaseVerification.verify(database) }
            if output.json { try JSONOutput.print(verification) } else { VerificationReport.print(verification) }
            guard verification.isSound else { throw ExitCode(1) }
            if !output.json { print("The database is sound.") }
        }
    }
}
