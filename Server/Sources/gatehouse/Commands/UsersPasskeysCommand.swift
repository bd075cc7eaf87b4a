import ArgumentParser
import Foundation
import GatehouseFoundation
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users passkeys NAME`: a user's passkeys, to rename or remove one (a lost phone, a key given back).
    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a user's passkeys, or rename or remove one.",
            discussion: """
                Without options, lists the passkeys with their ids. A removed passkey signs in no more; a user left \
                with no second factor under a policy that requires one sets one up at the next sign-in.
                """)

        @Argument(help: "The user's name.")
        var username: String
        // Ids are base64url and may begin with '-': the word after the option is its value, whatever it looks like.
        @Option(parsing: .unconditional, help: "Rename the passkey with this id (use with --to).")
        var rename: String?
        @Option(help: "The new name.")
        var to: String?
        @Option(parsing: .unconditional, help: "Remove the passkey with this id.")
        var remove: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        struct Summary: Encodable {
            let id, name, attestation, aaguid: String
            let synced, userVerified: Bool
            let createdAt: Int64
            let lastUsedAt: Int64?

            enum CodingKeys: String, CodingKey {
                case id, name, attestation, aaguid, synced
                case userVerified = "user_verified"
                case createdAt = "created_at"
                case lastUsedAt = "last_used_at"
            }
        }

        func validate() throws {
            if rename != nil, to?.trimmingCharacters(in: .whitespaces).isEmpty ?? true { throw ValidationError("--rename needs --to with the new name.") }
            if to != nil, rename == nil { throw ValidationError("--to goes with --rename ID.") }
            if rename != nil, remove != nil { throw ValidationError("Rename or remove, one at a time.") }
        }

        func run() async throws {
            let name = username.lowercased()
            let message: String? = try await store.withOperations { operations in
                let user = try await operations.user(named: name)
                if let id = rename, let newName = to?.trimmingCharacters(in: .whitespaces) {
                    try await operations.renamePasskey(id, of: user.id, to: newName)
                    return "Renamed passkey \(id) of \(name) to \(newName)."
                }
                if let id = remove {
                    try await operations.removePasskey(id, of: user.id)
                    return "Removed passkey \(id) of \(name); it signs in no more."
                }
                let list = try await operations.passkeys(of: user.id).map {
                    Summary(
                        id: $0.id, name: $0.name, attestation: $0.attestation, aaguid: $0.aaguid, synced: $0.synced, userVerified: $0.userVerified,
                        createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt)
                }
                if output.json {
                    try JSONOutput.print(list)
                    return nil
                }
                return Self.table(list, name: name)
            }
            if let message { print(message) }
        }

        private static func table(_ list: [Summary], name: String) -> String {
            guard !list.isEmpty else { return "\(name) has no passkeys." }
            var table = TextTable(headers: ["ID", "NAME", "KIND", "CREATED", "LAST USED"])
            table.rows = list.map {
                [$0.id, $0.name, $0.synced ? "synced" : "device-bound", Timestamp.format($0.createdAt), Timestamp.format($0.lastUsedAt)]
            }
            return table.render()
        }
    }
}
