import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// `gatehouse admins`: who may use the admin console (`/admin`), and with which role.
struct AdminsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admins",
        abstract: "Give people a role in the admin console (/admin), list them, or take the role away.",
        discussion: """
            viewer sees everything the console shows; operator also changes it; admin changes the same, and is the role \
            for those who manage the others'. They sign in to the console with a second factor, set up at their first \
            visit if they have none.
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an existing user a role in the admin console (admin unless --role says).")
        @Argument(help: "The user's username.")
        var username: String
        @Option(help: "viewer, operator or admin.")
        var role: AdminRole = .admin
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withLocalOperations { try await $0.grantAdminRole(role, to: username) }
            print("\(username.lowercased()) is now \(role.rawValue) in the admin console.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List who holds a role in the admin console.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let holders = try await store.withLocalOperations { try await $0.adminRoleHolders() }
            if output.json { return try JSONOutput.print(holders) }
            guard !holders.isEmpty else { return print("Nobody holds a role in the admin console. Give one with `gatehouse admins add USERNAME`.") }
            var table = TextTable(headers: ["USERNAME", "ROLE", "SINCE", "GIVEN BY"])
            table.rows = holders.map { [$0.username, $0.role.rawValue, Timestamp.format($0.grantedAt), $0.grantedBy] }
            print(table.render())
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a user's role in the admin console away.")
        @Argument(help: "The user's username.")
        var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withLocalOperations { try await $0.revokeAdminRole(of: username) }
            print("\(username.lowercased()) no longer holds a role in the admin console.")
        }
    }
}

extension AdminRole: ExpressibleByArgument {}
