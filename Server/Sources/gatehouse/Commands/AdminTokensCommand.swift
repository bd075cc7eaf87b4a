import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// `gatehouse admin-tokens`: personal tokens for the admin API, for scripts and operators without a client.
struct AdminTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-tokens",
        abstract: "Create, list and revoke personal tokens for the admin API (/admin/v1).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an admin token; it is printed once and stored only as a digest.",
            discussion: "Send it as `Authorization: Bearer gha_…`. Keep it like a password; revoke it when it is no longer needed.")

        @Argument(help: "A name saying who or what uses it (shown in the audit trail).")
        var name: String
        @Flag(help: "Only read (like the scope gatehouse:admin:read).")
        var readOnly = false
        @Option(help: "How long it is valid: days (30d) or hours (12h); at most 365d.")
        var expiresIn = "30d"
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        var lifetime: Int64? { DurationText.seconds(of: expiresIn) }

        func validate() throws {
            guard (1...64).contains(name.count), !name.contains(where: \.isNewline) else { throw ValidationError("The name must be 1 to 64 characters.") }
            guard lifetime != nil else { throw ValidationError("--expires-in must be like 30d or 12h, at most 365d, not \(expiresIn).") }
        }

        func run() async throws {
            let created = try await store.withDatabase { _, database in
                try await database.transaction { [self] _ in
                    let created = try await AdminTokenStore(database: database).create(name: name, readOnly: readOnly, lifetime: lifetime ?? 0)
                    try await OperatorAudit.record(
                        .adminTokenCreated, details: ["name": name, "id": created.record.id, "read_only": "\(readOnly)"], in: database)
                    return created
                }
            }
            if output.json {
                struct Created: Encodable {
                    var token: String
                    var record: AdminTokenStore.Record
                }
                try JSONOutput.print(Created(token: created.token, record: created.record))
            } else {
                print("Admin token \(created.record.id) (\(readOnly ? "read-only" : "read and write"), until \(Timestamp.format(created.record.expiresAt))):")
                print(created.token)
                print("It is shown this once; store it now.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List admin tokens (never the tokens themselves).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let tokens = try await store.withDatabase { _, database in try await AdminTokenStore(database: database).list() }
            if output.json { return try JSONOutput.print(tokens) }
            guard !tokens.isEmpty else { return print("No admin tokens. Create one with `gatehouse admin-tokens create NAME`.") }
            var table = TextTable(headers: ["ID", "NAME", "ACCESS", "EXPIRES", "REVOKED", "LAST USED"])
            table.rows = tokens.map {
                [
                    $0.id, $0.name, $0.readOnly ? "read" : "write", Timestamp.format($0.expiresAt), Timestamp.format($0.revokedAt),
                    Timestamp.format($0.lastUsedAt),
                ]
            }
            print(table.render())
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an admin token by its id; it is refused from now on.")
        @Argument var id: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            let revoked = try await store.withDatabase { _, database in
                try await database.transaction { [id] _ in
                    guard try await AdminTokenStore(database: database).revoke(id: id) else { return false }
                    try await OperatorAudit.record(.adminTokenRevoked, details: ["id": id], in: database)
                    return true
                }
            }
            guard revoked else { throw CommandError("There is no active admin token \(id).") }
            print("Revoked admin token \(id).")
        }
    }
}
