import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseServer

/// `gatehouse users …`: manage the people who can sign in.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage users.",
        subcommands: [
            Add.self, Import.self, List.self, Lock.self, Unlock.self, RequirePasswordChange.self, SetLocale.self, Passkeys.self, Identities.self, Sessions.self,
            Consents.self,
            Delete.self,
        ]
    )

    /// A user as printed: never the password hash.
    struct Summary: Encodable {
        var id: String
        var username: String
        var email: String
        var emailVerified: Bool
        var name: String?
        var locked: Bool
        var createdAt: Int64

        init(_ user: AdminUser) {
            id = user.id
            username = user.username
            email = user.email
            emailVerified = user.emailVerified
            name = user.name
            locked = user.locked
            createdAt = user.createdAt
        }

        enum CodingKeys: String, CodingKey {
            case id, username, email, name, locked
            case emailVerified = "email_verified"
            case createdAt = "created_at"
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user; the password is read from standard input.")

        @Argument(help: "The username (letters, digits, . _ - @).")
        var username: String
        @Option(help: "The user's email address.")
        var email: String
        @Option(help: "The user's full name.")
        var name: String?
        @Option(help: "The language of the user's pages and messages (en, de, fr, es, ja or ar); without it, their browser's.")
        var locale: String?
        @Flag(help: "Read the password from standard input (required).")
        var passwordStdin = false
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            try AccountInputValidation.validateUsername(username, email: email)
            try AccountInputValidation.validateEmail(email)
            guard passwordStdin else {
                throw ValidationError("Pass --password-stdin and pipe the password in, so it stays out of your shell history.")
            }
        }

        func run() async throws {
            let password = try readSecretFromStandardInput("password")
            // An operator vouches for the address they type.
            let account = NewAccount(username: username, email: email, emailVerified: true, name: name, password: password, locale: locale)
            let user = try await store.withOperations { try await $0.createUser(account) }
            if output.json { try JSONOutput.print(Summary(user)) } else { print("Added user \(user.username) (\(user.id)).") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let users = try await store.withOperations { try await $0.users() }.map(Summary.init)
            if output.json { return try JSONOutput.print(users) }
            guard !users.isEmpty else { return print("No users yet. Add one with `gatehouse users add`.") }
            var table = TextTable(headers: ["USERNAME", "EMAIL", "NAME", "STATUS", "ID"])
            table.rows = users.map { [$0.username, $0.email, $0.name ?? "-", $0.locked ? "locked" : "active", $0.id] }
            print(table.render())
        }
    }

    struct Lock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lock a user: they cannot sign in, and their sessions and tokens end.")
        @Argument var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await UsersCommand.setLocked(username, true, store: store)
            print("Locked \(username.lowercased()); their sessions and tokens are revoked.")
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unlock a user and lift pauses after wrong passwords or codes.")
        @Argument var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            // Also lifts pauses after wrong passwords or codes: an operator who unlocks means "let them in now".
            try await UsersCommand.setLocked(username, false, store: store)
            print("Unlocked \(username.lowercased()), and forgot its wrong passwords and codes.")
        }
    }

    struct RequirePasswordChange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a user choose a new password at their next sign-in.")
        @Argument var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { operations in
                try await operations.requirePasswordChange(userID: try await operations.user(named: username).id)
            }
            print("\(username.lowercased()) must choose a new password at the next sign-in.")
        }
    }

    struct SetLocale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the language of a user's pages and messages.",
            discussion: "An empty language (\"\") lets their pages follow the browser's language again, as the account page's choice does.")
        @Argument var username: String
        @Argument(help: "en, de, fr, es, ja or ar; or \"\" for the browser's language.")
        var locale: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            let user = try await store.withOperations { operations in
                try await operations.setLocale(of: try await operations.user(named: username).id, to: locale)
            }
            print(user.locale.map { "\(user.username) reads pages and messages in \($0)." } ?? "\(user.username)'s pages follow the browser's language.")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user with their sessions and tokens.")
        @Argument var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.withOperations { operations in try await operations.deleteUser(id: try await operations.user(named: username).id) }
            print("Deleted \(username.lowercased()).")
        }
    }

    static func setLocked(_ username: String, _ locked: Bool, store: StoreOptions) async throws {
        try await store.withOperations { operations in try await operations.setLocked(userID: try await operations.user(named: username).id, locked) }
    }
}
