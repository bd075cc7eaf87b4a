import ArgumentParser
import Foundation
import GatehouseFoundation
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
        let pushPlatform: String?

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
            pushPlatform = device.pushPlatform
        }

        enum CodingKeys: String, CodingKey {
            case id, email, state, username
            case deviceName = "device_name"
            case wrongPINs = "wrong_pins"
            case createdAt = "created_at"
            case lastUsedAt = "last_used_at"
            case pushPlatform = "push"
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List device identities, newest first.")
        @Option(help: "Only this user's identities.")
        var user: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let summaries = try await store.withOperations { operations in
                var userID: String?
                if let user { userID = try await operations.user(named: user).id }
                let devices = try await operations.devices(of: userID)
                // Only the accounts these identities belong to, not every user.
                var names: [String: String] = [:]
                for id in Set(devices.compactMap(\.userID)) { names[id] = try? await operations.user(id: id).username }
                return devices.map { Summary($0, username: $0.userID.flatMap { names[$0] }) }
            }
            if output.json { return try JSONOutput.print(summaries) }
            guard !summaries.isEmpty else { return print("No device identities.") }
            var table = TextTable(headers: ["ID", "USER", "DEVICE", "STATE", "PUSH", "LAST USED"])
            table.rows = summaries.map {
                [$0.id, $0.username ?? "(\($0.email))", $0.deviceName ?? "-", $0.state, $0.pushPlatform ?? "-", Timestamp.format($0.lastUsedAt)]
            }
            print(table.render())
        }
    }

    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unblock a device identity after too many wrong PINs; its count starts again.")
        @Argument var identity: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { try await $0.unblockDevice(identity) }
            print("Unblocked \(identity).")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a device identity; the app must register again.")
        @Argument var identity: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { try await $0.deleteDevice(identity) }
            print("Removed \(identity).")
        }
    }
}
