import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer
import Logging

/// `gatehouse backup`: a consistent copy of the serving database in one new SQLite file, checked before it counts.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database, while it serves, into a new SQLite file, and check the copy whole.",
        discussion: """
            A SQLite database is copied with VACUUM INTO, a PostgreSQL database from one snapshot. Signing keys and \
            other sealed values stay sealed with the server secret: keep a copy of the secret apart from the backup.
            """
    )
    @OptionGroup var store: StoreOptions
    @Option(help: "The new file to write the backup to.")
    var to: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let verification = try await store.withLocation(migrate: false) { _, database in
            let verification = try await DatabaseBackup.write(database, to: to, logger: .quiet)
            let rows = verification.tables.reduce(0) { $0 + $1.rows }
            try await OperatorAudit.record(
                .databaseBackedUp, details: ["file": URL(fileURLWithPath: to).standardizedFileURL.path, "rows": String(rows)], in: database)
            return verification
        }
        // Where the secret lives, when a file holds it (a configuration that gives it outright is the operator's to keep).
        let secretFile = (try? store.configuration()).flatMap { $0.secret == nil ? $0.resolvedSecretFile : nil }
        if output.json { return try JSONOutput.print(verification) }
        VerificationReport.print(verification)
        print("Backed up to \(to); the copy passed its checks.")
        if let secretFile { print("Keep a copy of the server secret (\(secretFile)) apart from it: sealed values open only with the secret.") }
    }
}

/// `gatehouse restore`: a backup into the configured database, which must be empty.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup into the configured database (SQLite or PostgreSQL), which must hold no users, clients or keys.",
        discussion: "The backup is checked first and the restored rows are compared with it. Start the server with the old server secret."
    )
    @OptionGroup var store: StoreOptions
    @Option(help: "The backup file that `gatehouse backup` wrote.")
    var from: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let verification = try await store.withLocation(migrate: true) { _, database in
            let verification = try await DatabaseBackup.restore(from: from, into: database, logger: .quiet)
            try await OperatorAudit.record(.databaseRestored, details: ["file": URL(fileURLWithPath: from).standardizedFileURL.path], in: database)
            return verification
        }
        if output.json { return try JSONOutput.print(verification) }
        VerificationReport.print(verification)
        print("Restored from \(from); every table holds the backup's rows. Start the server with the server secret it had.")
    }
}

/// A verification as a table of rows per table, then its problems.
enum VerificationReport {
    static func print(_ verification: DatabaseVerification) {
        var table = TextTable(headers: ["TABLE", "ROWS"])
        table.rows = verification.tables.map { [$0.name, String($0.rows)] }
        Swift.print(table.render())
        Swift.print("Schema version \(verification.schemaVersion).")
        for problem in verification.problems { Swift.print("Problem: \(problem)") }
    }
}
