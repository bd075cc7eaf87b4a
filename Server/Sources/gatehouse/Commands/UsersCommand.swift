import ArgumentParser
import Foundation
import GatehouseServer

/// `gatehouse users …`: manage the people who can sign in.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage users.",
        subcommands: [
            Add.self, Import.self, List.self, Lock.self, Unlock.self, RequirePasswordChange.self, Passkeys.self, Identities.self, Sessions.self, Delete.self,
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
            if let remote = try store.remote() {
                struct NewUser: Encodable { var username, email, password: String; var name: String? }
                let user = try await remote.send(
                    "POST", "/admin/v1/users", body: NewUser(username: username, email: email, password: password, name: name), as: AdminUser.self)
                return output.json ? try JSONOutput.print(Summary(user)) : print("Added user \(user.username) (\(user.id)).")
            }
            let user = try await store.withDatabase { configuration, database in
                if let problem = configuration.passwords.problem(with: password, username: username, email: email) {
                    throw CommandError("The password is not accepted: \(problem)")
                }
                let users = UserStore(database: database)
                if try await users.find(username: username) != nil {
                    throw CommandError("A user named \(username.lowercased()) already exists.")
                }
                let hasher = PasswordHasher(parameters: configuration.passwordHashing, maxConcurrentHashes: 1)
                let hash = try await hasher.hash(password)
                try await hasher.shutdown()
                return try await database.transaction { [username, email, name] _ in
                    let user = try await users.create(username: username, email: email, name: name, passwordHash: hash)
                    try await OperatorAudit.record(.accountCreated, user: user.id, details: ["by": "operator"], in: database)
                    return user
                }
            }
            if output.json { try JSONOutput.print(Summary(AdminUser(user))) } else { print("Added user \(user.username) (\(user.id)).") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let users: [Summary]
            if let remote = try store.remote() {
                users = try await remote.users().map { Summary($0) }
            } else {
                users = try await store.withDatabase { _, database in try await UserStore(database: database).list() }.map { Summary(AdminUser($0)) }
            }
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
            try await UsersCommand.setLocked(username, false, store: store)
            // Also lifts pauses after wrong passwords or codes: an operator who unlocks means "let them in now" (the API's unlock does too).
            if store.server == nil {
                try await store.withDatabase { configuration, database in
                    guard let user = try await UserStore(database: database).find(username: username) else { return }
                    let secret = try ServerSecret.resolve(configured: configuration.secret, filePath: configuration.resolvedSecretFile, logger: .quiet)
                    try await AccountPauses(database: database, secret: secret).lift(for: user)
                }
            }
            print("Unlocked \(username.lowercased()), and forgot its wrong passwords and codes.")
        }
    }

    struct RequirePasswordChange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a user choose a new password at their next sign-in.")
        @Argument var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            if let remote = try store.remote() {
                try await remote.send("POST", "/admin/v1/users/\(try await remote.user(named: username).id)/require-password-change")
                return print("\(username.lowercased()) must choose a new password at the next sign-in.")
            }
            let found = try await store.withDatabase { _, database in
                try await database.transaction { [username] _ in
                    let users = UserStore(database: database)
                    guard let user = try await users.find(username: username), try await users.requirePasswordChange(username: username) else { return false }
                    try await OperatorAudit.record(.passwordChangeRequired, user: user.id, in: database)
                    return true
                }
            }
            guard found else { throw CommandError("There is no user named \(username.lowercased()).") }
            print("\(username.lowercased()) must choose a new password at the next sign-in.")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a user with their sessions and tokens.")
        @Argument var username: String
        @OptionGroup var store: StoreOptions

        func run() async throws {
            if let remote = try store.remote() {
                try await remote.send("DELETE", "/admin/v1/users/\(try await remote.user(named: username).id)")
                return print("Deleted \(username.lowercased()).")
            }
            let deleted = try await store.withDatabase { _, database in
                try await database.transaction { [username] _ in
                    let users = UserStore(database: database)
                    guard let user = try await users.find(username: username), try await users.delete(username: username) else { return false }
                    // The event outlives the account: its id and name stay in the trail.
                    try await OperatorAudit.record(.accountDeleted, user: user.id, details: ["username": user.username], in: database)
                    return true
                }
            }
            guard deleted else { throw CommandError("There is no user named \(username.lowercased()).") }
            print("Deleted \(username.lowercased()).")
        }
    }

    static func setLocked(_ username: String, _ locked: Bool, store: StoreOptions) async throws {
        if let remote = try store.remote() {
            let id = try await remote.user(named: username).id
            try await remote.send("POST", "/admin/v1/users/\(id)/\(locked ? "lock" : "unlock")", as: AdminUser.self)
            return
        }
        let found = try await store.withDatabase { _, database in
            try await database.transaction { _ in
                let users = UserStore(database: database)
                guard let user = try await users.find(username: username), try await users.setLocked(username: username, locked) else { return false }
                try await OperatorAudit.record(locked ? .accountLocked : .accountUnlocked, user: user.id, details: ["by": "operator"], in: database)
                return true
            }
        }
        guard found else { throw CommandError("There is no user named \(username.lowercased()).") }
    }
}
