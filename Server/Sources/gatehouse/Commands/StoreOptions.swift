import ArgumentParser
import Foundation
import GatehouseFoundation
import GatehouseServer
import Logging

/// Options every command that touches the database shares.
struct StoreOptions: ParsableArguments {
    @Option(help: "The SQLite database file (default: gatehouse.sqlite, or GATEHOUSE_DATABASE).")
    var database: String?

    @Option(help: "A JSON configuration file (or GATEHOUSE_CONFIG).")
    var config: String?

    @Option(help: "Manage this server through its admin API instead of the database (token in GATEHOUSE_ADMIN_TOKEN).")
    var server: String?

    func configuration(overrides: [ServerSetting: String] = [:]) throws -> ServerConfiguration {
        var overrides = overrides
        if let database { overrides[.database] = database }
        return try ConfigurationLoader().load(configFile: config, overrides: overrides)
    }

    /// Refuses `--server` for a command that works on the database only, rather than quietly opening a local file.
    func requireLocal() throws {
        if server != nil {
            throw CommandError("This command works on the server's database only: run it on the server's machine, without --server.")
        }
    }

    /// The database `--database` names, or else the configuration's: for commands that need nothing else of the
    /// configuration (no server secret, which a PostgreSQL configuration must otherwise give).
    func location() throws -> DatabaseLocation {
        try requireLocal()
        if let database { return try DatabaseLocation(parsing: database) }
        return try configuration().database
    }

    /// Opens the database `location()` names (migrated when `migrate`), runs `body`, and closes it.
    func withLocation<T>(migrate: Bool, _ body: (DatabaseLocation, any Database) async throws -> T) async throws -> T {
        let location = try location()
        return try await DatabaseOpener.with(location, logger: .quiet, migrate: migrate) { try await body(location, $0) }
    }

    /// Opens (and migrates) the database, runs `body`, and closes it.
    func withDatabase<T>(_ body: (ServerConfiguration, any Database) async throws -> T) async throws -> T {
        try requireLocal()
        let configuration = try configuration()
        let database = DatabaseOpener.joinable(
            try await DatabaseOpener.open(configuration.database, logger: .quiet, sqliteSynchronous: configuration.sqliteSynchronous))
        do {
            let result = try await body(configuration, database)
            try await database.close()
            return result
        } catch {
            try? await database.close()
            throw error
        }
    }
}

/// `--json` for scripts.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of a table.")
    var json = false
}

/// Reads one secret line from standard input, so it never appears in the process list or shell history.
func readSecretFromStandardInput(_ what: String) throws -> String {
    guard let line = readLine(strippingNewline: true) else {
        throw CommandError("No \(what) on standard input; pipe it in, e.g. `printf '%s' \"$SECRET\" | gatehouse …`.")
    }
    guard !line.isEmpty else { throw CommandError("The \(what) is empty.") }
    return line
}
