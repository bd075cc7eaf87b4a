import ArgumentParser
import Foundation
import GatehouseServer

/// `gatehouse devices`: the operator's view of authenticator apps' device identities.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List, unblock and remove the device identities of authenticator apps.",
        subcommands: [List.self, Unblock.self, Delete.self]
    )

    struct Summary: Encodable {
        let id, email, state: String
        let username, deviceName: String?
        let wrongPINs: Int
        let createdAt: Int64
        let lastUsedAt: Int64?

        /// `device` as printed, with its user's name.
        init(_ device: AdminDevice, username: String?) {
            id = device.id
            email = device.email
            state = device.state
            self.username = username
            deviceName = device.deviceName
            wrongPINs = device.pinFailures
            createdAt = device.createdAt
            lastUsedAt = device.lastUsedAt
        }

        enum CodingKeys: String, CodingKey {
            case id, email, state, username
            case deviceName = "device_name"
            case wrongPINs = "wrong_pins"
            case createdAt = "created_at"
            case lastUsedAt = "last_used_at"
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List device identities, newest first.")
        @Option(help: "Only this user's identities.")
        var user: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let summaries: [Summary]
            if let remote = try store.remote() { summaries = try await remoteSummaries(remote) } else { summaries = try await localSummaries() }
            if output.json { return try JSONOutput.print(summaries) }
            guard !summaries.isEmpty else { return print("No device identities.") }
            var table = TextTable(headers: ["ID", "USER", "DEVICE", "STATE", "LAST USED"])
            table.rows = summaries.map { [$0.id, $0.username ?? "(\($0.email))", $0.deviceName ?? "-", $0.state, Timestamp.format($0.lastUsedAt)] }
            print(table.render())
        }

        private func remoteSummaries(_ remote: RemoteAdmin) async throws -> [Summary] {
            let devices = try await remote.send("GET", "/admin/v1/devices", as: RemoteAdmin.Page<AdminDevice>.self).items
            let names = Dictionary(uniqueKeysWithValues: try await remote.users().map { ($0.id, $0.username) })
            var userID: String?
            if let user { userID = try await remote.user(named: user).id }
            return devices.filter { userID == nil || $0.userID == userID }.map { Summary($0, username: $0.userID.flatMap { names[$0] }) }
        }

        private func localSummaries() async throws -> [Summary] {
            try await store.withDatabase { configuration, database in
                let users = UserStore(database: database)
                var userID: String?
                if let user {
                    guard let found = try await users.find(username: user) else { throw CommandError("There is no user \(user.lowercased()).") }
                    userID = found.id
                }
                let identities = try await DeviceIdentityStore(database: database).list(userID: userID)
                // Only the accounts these identities belong to, not every user.
                var names: [String: String] = [:]
                for id in Set(identities.compactMap(\.userID)) { names[id] = try await users.find(id: id)?.username }
                let limit = configuration.authenticator.maxPINAttempts
                return identities.map { Summary(AdminDevice($0, limit: limit), username: $0.userID.flatMap { names[$0] }) }
            }
        }
    }

    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unblock a device identity after too many wrong PINs; its count starts again.")
        @Argument var identity: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            if let remote = try store.remote() {
                try await remote.send("POST", "/admin/v1/devices/\(RemoteAdmin.escaped(identity))/unblock")
                return print("Unblocked \(identity).")
            }
            let unblocked = try await store.withDatabase { _, database in
                try await database.transaction { _ in
                    guard try await DeviceIdentityStore(database: database).unblock(identity) else { return false }
                    try await OperatorAudit.record(.deviceIdentityUnblocked, details: ["identity": identity], in: database)
                    return true
                }
            }
            guard unblocked else { throw CommandError("There is no registered device identity \(identity); see `gatehouse devices list`.") }
            print("Unblocked \(identity).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a device identity; the app must register again.")
        @Argument var identity: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            if let remote = try store.remote() {
                try await remote.send("DELETE", "/admin/v1/devices/\(RemoteAdmin.escaped(identity))")
                return print("Removed \(identity).")
            }
            let deleted = try await store.withDatabase { _, database in
                try await database.transaction { _ in
                    guard try await DeviceIdentityStore(database: database).delete(identity) else { return false }
                    try await OperatorAudit.record(.deviceIdentityDeleted, details: ["identity": identity], in: database)
                    return true
                }
            }
            guard deleted else { throw CommandError("There is no device identity \(identity); see `gatehouse devices list`.") }
            print("Removed \(identity).")
        }
    }
}
