import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users consents NAME`: what a user allowed third-party clients, to revoke one.
    struct Consents: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what a user allowed third-party clients, or revoke one.",
            discussion: """
                Revoking a client's consent revokes every access and refresh token it holds for the user; its next \
                sign-in asks the user again.
                """)

        @Argument(help: "The user's name.")
        var username: String
        @Option(help: "Revoke what the user allowed this client.")
        var revoke: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let name = username.lowercased()
            let message: String? = try await store.withOperations { operations in
                let user = try await operations.user(named: name)
                if let client = revoke {
                    try await operations.revokeConsent(to: client, of: user.id)
                    return "Revoked what \(name) allowed \(client); its tokens work no more."
                }
                let consents = try await operations.consents(of: user.id)
                if output.json {
                    try JSONOutput.print(consents)
                    return nil
                }
                guard !consents.isEmpty else { return "\(name) has allowed no third-party client anything." }
                var table = TextTable(headers: ["CLIENT", "SCOPES", "ALLOWED", "LAST CHANGED"])
                table.rows = consents.map {
                    [$0.clientID, $0.scopes.joined(separator: " "), Timestamp.format($0.grantedAt), Timestamp.format($0.updatedAt)]
                }
                return table.render()
            }
            if let message { print(message) }
        }
    }
}
