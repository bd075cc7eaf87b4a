import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users identities NAME`: the identities at other providers linked to a user, to unlink one.
    struct Identities: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the identities at other providers linked to a user, or unlink one.",
            discussion: """
                An unlinked identity signs in to this account no more; signing in with it again starts over as a new \
                identity. The last way to sign in (no password, passkey or other identity left) is never unlinked.
                """)

        @Argument(help: "The user's name.")
        var username: String
        @Option(help: "Unlink the identity at this provider (its id).")
        var unlink: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let name = username.lowercased()
            let message: String? = try await store.withOperations { operations in
                let user = try await operations.user(named: name)
                if let provider = unlink {
                    try await operations.unlinkIdentity(at: provider, of: user.id)
                    return "Unlinked \(name)'s \(provider) identity."
                }
                let list = try await operations.identities(of: user.id)
                if output.json {
                    try JSONOutput.print(list)
                    return nil
                }
                return Self.table(list, name: name, hasPassword: user.hasPassword)
            }
            if let message { print(message) }
        }

        /// The identities as a table, with a note when the account has no password.
        private static func table(_ list: [FederatedIdentity], name: String, hasPassword: Bool) -> String {
            // An account another provider made has no password until its owner sets one (by recovery).
            let passwordNote = !hasPassword ? "\n\(name) has no password: signing in takes a linked identity or a passkey." : ""
            guard !list.isEmpty else { return "\(name) has no linked identities." + passwordNote }
            var table = TextTable(headers: ["PROVIDER", "SUBJECT", "EMAIL", "LINKED", "LAST USED"])
            table.rows = list.map { [$0.providerID, $0.subject, $0.email ?? "", Timestamp.format($0.createdAt), Timestamp.format($0.lastUsedAt)] }
            return table.render() + passwordNote
        }
    }
}
