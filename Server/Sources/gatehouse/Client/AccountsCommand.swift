import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse accounts`: the accounts signed in from this terminal (each `gatehouse login` of another person adds one),
/// which is current, and switching or removing them — the SDK's account list, from the terminal.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts signed in from this terminal; switch the current one or sign one out.",
        subcommands: [List.self, Switch.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// `alice (Alice Example)`, or the subject when the provider gave no name.
    static func name(of account: StoredAccount) -> String {
        let who = [account.username, account.name.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
        return who.isEmpty ? account.subject : who
    }

    /// The client of the saved profile, or a readable error when nobody signed in.
    static func client(_ home: ClientHome) throws -> GatehouseClient {
        guard let profile = try home.loadProfile() else { throw CommandError(Terminal.words("cli.sign_in_first")) }
        return GatehouseClient(configuration: try home.configuration(for: profile))
    }

    /// The account named by its username, email address or subject.
    static func account(_ name: String, in client: GatehouseClient) async throws -> StoredAccount {
        let accounts = try await client.accounts()
        guard let account = accounts.first(where: { $0.username == name || $0.subject == name || $0.email == name }) else {
            throw CommandError(Terminal.words("cli.no_such_account", ["name": name]))
        }
        return account
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts; the current one is marked *.")

        @Flag(help: "Print the accounts as JSON.")
        var json = false
        @OptionGroup var home: ClientHome

        func run() async throws {
            guard try home.loadProfile() != nil else {
                if json { try JSONOutput.print([Listed]()) } else { print(Terminal.words("cli.not_signed_in")) }
                return
            }
            let accounts = try await AccountsCommand.client(home).accounts()
            if json {
                try JSONOutput.print(accounts.map(Listed.init))
                return
            }
            if accounts.isEmpty { print(Terminal.words("cli.not_signed_in")) }
            for account in accounts {
                let since = ISO8601DateFormatter().string(from: account.signedInAt)
                print("\(account.isDefault ? "*" : " ") \(AccountsCommand.name(of: account))\(account.email.map { "  \($0)" } ?? "")  signed in \(since)")
            }
        }
    }

    struct Switch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "switch", abstract: "Make another signed-in account the current one (for whoami, token and logout).")

        @Argument(help: "The account's username, email address or subject.")
        var account: String
        @OptionGroup var home: ClientHome

        func run() async throws {
            let client = try AccountsCommand.client(home)
            let chosen = try await AccountsCommand.account(account, in: client)
            _ = try await client.switchAccount(to: chosen)
            print(Terminal.words("cli.now_signed_in_as", ["name": AccountsCommand.name(of: chosen)]))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Sign one account out: revoke its tokens at the server and forget it here.")

        @Argument(help: "The account's username, email address or subject.")
        var account: String
        @OptionGroup var home: ClientHome

        func run() async throws {
            let client = try AccountsCommand.client(home)
            let chosen = try await AccountsCommand.account(account, in: client)
            do {
                try await client.removeAccount(chosen)
            } catch {
                throw CommandError(Terminal.words("cli.account_forgotten", ["name": AccountsCommand.name(of: chosen), "reason": "\(error)"]))
            }
            if try await client.accounts().isEmpty { try home.removeProfile() }
            print(Terminal.words("cli.account_signed_out", ["name": AccountsCommand.name(of: chosen)]))
        }
    }

    /// What `gatehouse accounts --json` prints per account: who, never a token.
    struct Listed: Encodable {
        let subject: String
        let username: String?
        let name: String?
        let email: String?
        let current: Bool
        let signedInAt: String

        init(_ account: StoredAccount) {
            subject = account.subject
            username = account.username
            name = account.name
            email = account.email
            current = account.isDefault
            signedInAt = ISO8601DateFormatter().string(from: account.signedInAt)
        }

        enum CodingKeys: String, CodingKey {
            case subject, username, name, email, current
            case signedInAt = "signed_in_at"
        }
    }
}
