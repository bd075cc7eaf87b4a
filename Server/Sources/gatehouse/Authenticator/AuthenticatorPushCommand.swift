import ArgumentParser
import Foundation
import Gatehouse
import GatehouseProtocol

/// `gatehouse authenticator push-token`: what the phone does once APNs or FCM gave it a token.
struct AuthenticatorPushTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-token",
        abstract: "Register where an identity's sign-in pushes go (an APNs device token or an FCM registration token).",
        discussion: "With --remove, pushes to the identity stop."
    )

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: "The identity id (see `list`).")
    var identity: String
    @Option(help: "apns or fcm.")
    var platform: PushPlatform = .apns
    @Option(help: "The token the platform gave the app.")
    var token: String?
    @Flag(help: "Stop pushes to this identity instead.")
    var remove = false

    func run() async throws {
        let authenticator = options.authenticator
        do {
            if remove {
                try await authenticator.unregisterPushToken(for: identity)
                return print("Pushes to \(identity) stopped.")
            }
            guard let token, !token.isEmpty else { throw CommandError("Give the platform's token with --token, or --remove.") }
            try await authenticator.registerPushToken(token, platform: platform, for: identity)
            print("Sign-in pushes for \(identity) now go to this \(platform.rawValue) token.")
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }
}

extension PushPlatform: @retroactive ExpressibleByArgument {}

/// `gatehouse authenticator push`: what the phone does when a sign-in push arrives.
struct AuthenticatorPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Answer a sign-in push: pick the number the sign-in page shows, then the PIN (or deny it).",
        discussion: """
            Pass the notification's JSON (its `gatehouse` member names the service, identity and session), or - to read \
            it from standard input. Without --number the three numbers are shown and one is asked for.
            """
    )

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: ArgumentHelp("The push's JSON, or - for standard input.", valueName: "payload"))
    var payload: String
    @Option(help: "The number the sign-in page shows.")
    var number: Int?
    @Flag(help: "Deny the sign-in.")
    var deny = false
    @Flag(name: .customLong("report"), help: "With --deny: this wasn't me. The account's owner is told and the denial audited.")
    var reportFraud = false
    @OptionGroup var pin: PINInput

    func run() async throws {
        let authenticator = options.authenticator
        let text = payload == "-" ? (readLine(strippingNewline: false) ?? "") : payload
        do {
            let request = try await authenticator.handlePush(Data(text.utf8))
            request.describe(serviceName: request.serviceName, deny: "cli.app.not_you_push")
            if deny {
                try await authenticator.deny(request, reportFraud: reportFraud)
                return print(Terminal.words(reportFraud ? "cli.app.denied_reported" : "cli.app.denied_push"))
            }
            let choices = request.numberChoices.map(String.init).joined(separator: "  ")
            let picked: Int
            if let number {
                picked = number
            } else {
                guard let answer = Int(try Terminal.ask(Terminal.question("cli.app.which_number", ["choices": choices]))) else {
                    throw CommandError(Terminal.words("cli.app.answer_number", ["choices": choices]))
                }
                picked = answer
            }
            try await authenticator.approve(request, number: picked, pin: try pin.read(Terminal.question("cli.app.pin")))
            print(Terminal.words("cli.app.approved"))
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }
}
