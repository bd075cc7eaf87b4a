import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// `gatehouse registration-tokens`: initial access tokens, with which a developer's client registers itself at
/// `/register` (RFC 7591) when `dynamic_registration.enabled`.
struct RegistrationTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registration-tokens",
        abstract: "Create, list and revoke initial access tokens for clients that register themselves (RFC 7591).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an initial access token; it is printed once and stored only as a digest.",
            discussion: "The client sends it as `Authorization: Bearer ghr_…` with its registration at /register.")

        @Argument(help: "A name saying who it was given to (shown in the audit trail).")
        var name: String
        @Option(help: "How long it is valid: days (7d) or hours (12h); at most 365d.")
        var expiresIn = "7d"
        @Option(help: "How many clients it may register (default: any number until it expires).")
        var uses: Int?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            guard let lifetime = DurationText.seconds(of: expiresIn) else {
                throw ValidationError("--expires-in must be like 7d or 12h, not \(expiresIn).")
            }
            let created = try await store.withOperations { try await $0.createRegistrationToken(name: name, lifetime: lifetime, maxUses: uses) }
            if output.json { return try JSONOutput.print(created) }
            let limit = created.record.maxUses.map { "\($0) registration\($0 == 1 ? "" : "s")" } ?? "any number of registrations"
            print("Registration token \(created.record.id) (\(limit), until \(Timestamp.format(created.record.expiresAt))):")
            print(created.token)
            print("It is shown this once; give it to the client's developer now.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List initial access tokens (never the tokens themselves).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let tokens = try await store.withOperations { try await $0.registrationTokens() }
            if output.json { return try JSONOutput.print(tokens) }
            guard !tokens.isEmpty else { return print("No registration tokens. Create one with `gatehouse registration-tokens create NAME`.") }
            var table = TextTable(headers: ["ID", "NAME", "USES", "EXPIRES", "REVOKED", "LAST USED"])
            table.rows = tokens.map {
                [
                    $0.id, $0.name, "\($0.uses)/\($0.maxUses.map(String.init) ?? "any")", Timestamp.format($0.expiresAt), Timestamp.format($0.revokedAt),
                    Timestamp.format($0.lastUsedAt),
                ]
            }
            print(table.render())
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an initial access token; the clients it registered stay.")
        @Argument(help: "The token's id (from `list`).")
        var id: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { try await $0.revokeRegistrationToken(id) }
            print("Revoked registration token \(id).")
        }
    }
}
