import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse account`: the signed-in person's own account through the server's account API, as an app would use the
/// SDK's `AccountClient`. The session needs the `account` scope (`gatehouse login --scope "openid account"`); a
/// change that needs a recent sign-in signs in again here first.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "See and change your own account: profile, applications, sessions, passkeys, security events; delete it.",
        discussion: """
            Uses the account API with the current session, which needs the account scope:
            gatehouse login --scope "openid profile email offline_access account"
            Removing a passkey or deleting the account needs a recent sign-in: you are asked to sign in again first.
            """,
        subcommands: [
            Show.self, Rename.self, Email.self, Phone.self, Password.self, Apps.self, Sessions.self, Passkeys.self, Devices.self, Providers.self, Events.self,
            Delete.self,
        ],
        defaultSubcommand: Show.self
    )

    /// The account client of the current session; a change that needs a recent sign-in walks a new one in the terminal.
    static func client(_ home: ClientHome) async throws -> AccountClient {
        let (user, _) = try await home.signedInUser()
        let claims = await user.claims
        let username = claims?.preferredUsername
        let name = username ?? claims?.subject ?? ""
        return AccountClient(session: user) { needed in
            Terminal.say(Terminal.words("cli.reauthenticate", ["name": name]))
            let flow = TerminalFlow(client: GatehouseClient(configuration: user.configuration), username: username, password: nil)
            _ = try await flow.run(from: await user.stepUp(acrValues: needed.acrValues, maxAge: needed.maxAge))
        }
    }

    /// Runs `body`, turning the account API's refusals into what to do about them.
    static func run(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as GatehouseError where error.oauthError == "insufficient_scope" {
            throw CommandError(
                "This session may not use the account API. Sign in with the account scope: gatehouse login --scope \"openid profile email offline_access account\""
            )
        } catch let error as GatehouseError {
            throw CommandError(error.description)
        }
    }

    static func date(_ date: Date) -> String { date.formatted(.iso8601) }

    /// A new email address or phone number: `request` sends the code, the person types it, `confirm` says what changed.
    static func changeContact(
        _ home: ClientHome, prompt: (String) -> String, request: (AccountClient) async throws -> String,
        confirm: (AccountClient, String, String) async throws -> String
    ) async throws {
        try await run {
            let account = try await client(home)
            let sentTo = try await request(account)
            print(try await confirm(account, sentTo, try Terminal.ask(prompt(sentTo))))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the account.")
        @Flag(help: "Print the account as JSON.") var json = false
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let profile = try await AccountCommand.client(home).profile()
                if json { return try JSONOutput.print(profile) }
                let rows: [(String, String?)] = [
                    ("username", profile.username), ("name", profile.name), ("given name", profile.givenName), ("family name", profile.familyName),
                    ("email", profile.email + (profile.emailVerified ? " (verified)" : "")),
                    ("phone", profile.phoneNumber.map { $0 + (profile.phoneNumberVerified ? " (verified)" : "") }),
                    ("password", profile.hasPassword ? "set" : "none"), ("created", AccountCommand.date(profile.createdAt)),
                ]
                for (name, value) in rows { if let value { print("\(name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(value)") } }
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Change the names on the profile (\"\" clears one).")
        @Option(help: "The full name.") var name: String?
        @Option(name: .customLong("given-name"), help: "The given name.") var givenName: String?
        @Option(name: .customLong("family-name"), help: "The family name.") var familyName: String?
        @OptionGroup var home: ClientHome

        func validate() throws {
            if name == nil, givenName == nil, familyName == nil { throw ValidationError("Give --name, --given-name or --family-name.") }
        }

        func run() async throws {
            try await AccountCommand.run {
                let profile = try await AccountCommand.client(home).updateNames(name: name, givenName: givenName, familyName: familyName)
                let names = [profile.name, profile.givenName, profile.familyName].compactMap { $0 }
                print("Names now: \(names.isEmpty ? "none" : names.joined(separator: " / ")).")
            }
        }
    }

    struct Email: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "email", abstract: "Change your email address: a code goes to the new one, which you type here.")
        @Argument(help: "The new email address.") var address: String
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.changeContact(home, prompt: { "If \($0) can receive it, a code is on its way. Code: " }) { account in
                try await account.requestEmailChange(to: address)
            } confirm: { account, sentTo, code in
                "Your email address is now \(try await account.confirmEmailChange(to: sentTo, code: code).email). The old one was told."
            }
        }
    }

    struct Phone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "phone", abstract: "Change your phone number: a code goes to the new one by text message, which you type here.")
        @Argument(help: "The new phone number, with its country code (+1 555 …).") var number: String
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.changeContact(home, prompt: { "A code is on its way to \($0). Code: " }) { account in
                try await account.requestPhoneChange(to: number)
            } confirm: { account, sentTo, code in
                "Your phone number is now \(try await account.confirmPhoneChange(to: sentTo, code: code).phoneNumber ?? sentTo)."
            }
        }
    }

    struct Password: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password", abstract: "Change your password (asked for, hidden); every session ends, this one too.")
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                let current = try Terminal.askSecret("Current password: ")
                let new = try Terminal.askSecret("New password: ")
                guard try Terminal.askSecret("Repeat the new password: ") == new else { throw CommandError("The new passwords differ; nothing changed.") }
                try await account.changePassword(current: current, new: new)
                print("Password changed. You were signed out everywhere: run `gatehouse login` again.")
            }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "List the authenticator apps that sign in with a QR code; --remove one by its id.")
        @Option(help: "The id of an authenticator app to remove.") var remove: String?
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                if let remove {
                    try await account.removeDevice(id: remove)
                    return print("Removed authenticator app \(remove).")
                }
                let devices = try await account.devices()
                if devices.isEmpty { return print("No authenticator apps.") }
                for device in devices { print("\(device.id)  \(device.deviceName ?? "authenticator app")  \(device.state)") }
            }
        }
    }

    struct Providers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "providers", abstract: "List the other providers you sign in with; --unlink one (never your last way in).")
        @Option(help: "The id of a provider to unlink.") var unlink: String?
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                if let unlink {
                    try await account.unlinkIdentity(provider: unlink)
                    return print("Unlinked \(unlink).")
                }
                let identities = try await account.identities()
                if identities.isEmpty { return print("You sign in with no other provider.") }
                for identity in identities { print("\(identity.provider)  \(identity.email ?? "")  linked \(AccountCommand.date(identity.createdAt))") }
            }
        }
    }

    struct Apps: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apps", abstract: "List the applications you allowed; --revoke one (its tokens stop working).")
        @Option(help: "The client id of an application to revoke.") var revoke: String?
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                if let revoke {
                    try await account.revokeConsent(clientID: revoke)
                    return print("Revoked \(revoke): it gets nothing more without asking you again.")
                }
                let consents = try await account.consents()
                if consents.isEmpty { return print("You allowed no third-party application anything.") }
                for consent in consents {
                    print("\(consent.clientID)  \(consent.scopes.joined(separator: " "))  since \(AccountCommand.date(consent.grantedAt))")
                }
            }
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sessions", abstract: "List where you are signed in; --end a browser session by its id.")
        @Option(help: "The id of a browser session to sign out.") var end: String?
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                if let end {
                    try await account.endSession(id: end)
                    return print("Signed out browser session \(end).")
                }
                let sessions = try await account.sessions()
                for browser in sessions.browserSessions {
                    print(
                        "browser \(browser.id)  signed in \(AccountCommand.date(browser.authenticatedAt))  last seen \(AccountCommand.date(browser.lastSeenAt))"
                    )
                }
                for app in sessions.appSignIns {
                    print("app     \(app.clientID)  \(app.scopes.joined(separator: " "))  last token \(AccountCommand.date(app.lastIssuedAt))")
                }
            }
        }
    }

    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "passkeys", abstract: "List your passkeys; --remove one by its id.")
        @Option(help: "The id of a passkey to remove (never your last way to sign in).") var remove: String?
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                if let remove {
                    try await account.removePasskey(id: remove)
                    return print("Removed passkey \(remove).")
                }
                let passkeys = try await account.passkeys()
                if passkeys.isEmpty { return print("No passkeys.") }
                for passkey in passkeys { print("\(passkey.id)  \(passkey.name)  added \(AccountCommand.date(passkey.createdAt))") }
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "events", abstract: "Show the newest security events of your account.")
        @Option(help: "How many (1 to 1000).") var limit = 20
        @Flag(help: "Print the events as JSON.") var json = false
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let events = try await AccountCommand.client(home).events(limit: limit)
                if json { return try JSONOutput.print(events) }
                for event in events { print("\(AccountCommand.date(event.occurredAt))  \(event.type)  \(event.actor)") }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete", abstract: "Delete your account: its sessions, tokens, factors and consents go with it.")
        @Option(help: "Your username, typed again to confirm.") var confirm: String
        @OptionGroup var home: ClientHome

        func run() async throws {
            try await AccountCommand.run {
                let account = try await AccountCommand.client(home)
                let profile = try await account.profile()
                guard confirm.lowercased() == profile.username.lowercased() else {
                    throw CommandError("--confirm must be your username (\(profile.username)); nothing was deleted.")
                }
                try await account.deleteAccount()
                print("Deleted the account \(profile.username). Its sessions and tokens no longer work.")
            }
        }
    }
}
