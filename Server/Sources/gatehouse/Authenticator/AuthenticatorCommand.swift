import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse authenticator`: the terminal standing in for a phone's authenticator app.
struct AuthenticatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticator",
        abstract: "Act as an authenticator app: register device identities, approve QR sign-ins and pushes with a PIN.",
        discussion: """
            Identities are kept in the SDK's encrypted file store under the client folder (--home). The PIN never leaves
            this machine, and the stored identity cannot be used to check PIN guesses: every guess goes to the server,
            which blocks the identity after a few wrong ones.
            """,
        subcommands: [
            AuthenticatorRegisterCommand.self, AuthenticatorConfirmCommand.self, AuthenticatorSetPINCommand.self,
            AuthenticatorListCommand.self, AuthenticatorApproveCommand.self, AuthenticatorSignInCommand.self,
            AuthenticatorDeleteCommand.self, AuthenticatorPushTokenCommand.self, AuthenticatorPushCommand.self,
        ]
    )
}

/// Where identities live and how the terminal names itself to services.
struct AuthenticatorOptions: ParsableArguments {
    @OptionGroup var home: ClientHome

    /// The name and version this tool sends in the `Gatehouse-App` header.
    static let app = AuthenticatorApp(name: "gatehouse-cli", version: "1.0.0")

    var authenticator: DeviceAuthenticator {
        DeviceAuthenticator(
            app: Self.app, storage: EncryptedFileTokenStorage(directory: home.folder.appendingPathComponent("authenticator")),
            timeout: 15)
    }
}

/// Reads a PIN: one line from standard input with `--pin-stdin`, else a hidden prompt.
struct PINInput: ParsableArguments {
    @Flag(name: .customLong("pin-stdin"), help: "Read the PIN from the first line of standard input instead of prompting.")
    var fromStandardInput = false

    func read(_ question: String) throws -> String {
        if fromStandardInput {
            guard let line = readLine(strippingNewline: true) else { throw CommandError("--pin-stdin was given but standard input is empty.") }
            return line.trimmingCharacters(in: .whitespaces)
        }
        return try Terminal.askSecret(question)
    }
}

extension PendingApproval {
    /// Says on standard error who asks, and where the request came from, so that a code relayed from someone else's
    /// page, or a push the person did not ask for, is recognizable; `deny` is the message that says how to refuse it.
    func describe(serviceName: String, deny: String) {
        Terminal.say(Terminal.words("cli.app.asks", ["client": clientName, "service": serviceName, "username": username]))
        let language = Locale(identifier: TerminalLanguage.tag)
        var origin = [
            "address": requesterAddress ?? Terminal.words("cli.app.unknown_address"),
            "time": (requestedAt ?? Date()).formatted(Date.FormatStyle(date: .omitted, time: .standard, locale: language)),
        ]
        origin["agent"] = requesterUserAgent
        Terminal.say(Terminal.words(requesterUserAgent == nil ? "cli.app.origin_no_agent" : "cli.app.origin", origin) + " " + Terminal.words(deny))
    }
}

extension DeviceAuthenticatorError {
    /// The same words in the terminal's language, as the terminal's error.
    var commandError: CommandError { CommandError(localizedDescription(in: [TerminalLanguage.tag])) }
}
