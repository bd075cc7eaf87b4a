import ArgumentParser
import Foundation
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
            if let remote = try store.remote() { return try await runRemotely(remote, name: name) }
            let message: String? = try await store.withDatabase { _, database in
                guard let user = try await UserStore(database: database).find(username: name) else { throw CommandError("There is no user named \(name).") }
                let passkeys = PasskeyStore(database: database)
                if let id = rename, let newName = to?.trimmingCharacters(in: .whitespaces) {
                    guard try await passkeys.rename(id, of: user.id, to: String(newName.prefix(64))) else {
                        throw CommandError("\(name) has no passkey \(id).")
                    }
                    return "Renamed passkey \(id) of \(name) to \(newName)."
                }
                if let id = remove {
                    let removed = try await database.transaction { _ in
                        guard try await passkeys.remove(id, of: user.id) else { return false }
                        try await OperatorAudit.record(.factorRemoved, user: user.id, details: ["factor": "passkey", "passkey": id], in: database)
                        return true
                    }
                    guard removed else { throw CommandError("\(name) has no passkey \(id).") }
                    return "Removed passkey \(id) of \(name); it signs in no more."
                }
                let list = try await passkeys.list(userID: user.id).map { passkey in
                    Summary(
                        id: passkey.id, name: passkey.name, attestation: passkey.attestation, aaguid: passkey.aaguid, synced: passkey.backupEligible,
                        userVerified: passkey.userVerified, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt)
                }
                if output.json {
                    try JSONOutput.print(list)
                    return nil
                }
                return Self.table(list, name: name)
            }
            if let message { print(message) }
        }

        /// The same through the admin API.
        private func runRemotely(_ remote: RemoteAdmin, name: String) async throws {
            let user = try await remote.user(named: name)
            if let id = rename, let newName = to?.trimmingCharacters(in: .whitespaces) {
                struct Change: Encodable { var name: String }
                try await remote.send(
                    "PATCH", "/admin/v1/users/\(user.id)/passkeys/\(RemoteAdmin.escaped(id))", body: Change(name: newName), as: AdminPasskey.self)
                return print("Renamed passkey \(id) of \(name) to \(newName).")
            }
            if let id = remove {
                try await remote.send("DELETE", "/admin/v1/users/\(user.id)/passkeys/\(RemoteAdmin.escaped(id))")
                return print("Removed passkey \(id) of \(name); it signs in no more.")
            }
            let list = try await remote.send("GET", "/admin/v1/users/\(user.id)/passkeys", as: RemoteAdmin.Page<AdminPasskey>.self).items.map {
                Summary(
                    id: $0.id, name: $0.name, attestation: $0.attestation, aaguid: $0.aaguid, synced: $0.synced, userVerified: $0.userVerified,
                    createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt)
            }
            if output.json { return try JSONOutput.print(list) }
            print(Self.table(list, name: name))
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
