import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse authenticator register`: a new device identity, from the email's code to the PIN.
struct AuthenticatorRegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register this terminal as an authenticator for the account with an email address.",
        discussion: """
            The service emails a verification code (or link); enter it when asked, then choose a PIN. With --no-wait the
            command stops after starting, and `confirm` and `set-pin` finish the registration.
            """
    )

    @OptionGroup var options: AuthenticatorOptions
    @Option(help: ArgumentHelp("The service URL, e.g. http://127.0.0.1:8080/authenticator (or just the server's address).", valueName: "url"))
    var service: String
    @Option(help: ArgumentHelp("The account's email address.", valueName: "address"))
    var email: String
    @Option(name: .customLong("device-name"), help: "A name for this device, shown to the account's owner.")
    var deviceName: String = ProcessInfo.processInfo.hostName
    @Option(help: "The verification code from the email, instead of prompting.")
    var code: String?
    @Flag(name: .customLong("no-wait"), help: "Only start the registration; print the identity id and stop.")
    var noWait = false
    @OptionGroup var pin: PINInput

    func run() async throws {
        let authenticator = options.authenticator
        do {
            let service = try await authenticator.service(at: try Self.serviceURL(self.service))
            let record = try await authenticator.register(at: service, email: email, deviceName: deviceName)
            Terminal.say("Registering with \(service.name) as \(email) (identity \(record.id)).")
            if noWait {
                print(record.id)
                return
            }
            if service.description.verificationMethods.contains("link") && code == nil {
                _ = try Terminal.ask("Open the link in the email sent to \(email), confirm, then press Enter: ")
                guard try await authenticator.refresh(record.id).state == .verified else {
                    throw CommandError("The registration is not confirmed yet; open the link, then run `gatehouse authenticator set-pin \(record.id)`.")
                }
            } else {
                let code = try self.code ?? Terminal.ask("Enter the code sent to \(email): ")
                try await authenticator.confirm(record.id, code: code)
            }
            let registered = try await AuthenticatorSetPINCommand.choosePIN(
                for: record.id, length: service.description.pinLength, input: pin,
                authenticator: authenticator)
            print("Registered \(registered.id) for \(registered.username ?? email) at \(registered.serviceName).")
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }

    /// The service URL: as given, or the server's address plus `/authenticator`.
    static func serviceURL(_ text: String) throws -> URL {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed.hasSuffix("/authenticator") ? trimmed : trimmed + "/authenticator"),
            let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil
        else { throw CommandError("The service \(text) is not an http(s) URL, e.g. http://127.0.0.1:8080/authenticator.") }
        return url
    }
}

/// `gatehouse authenticator confirm`: the email's code for a registration started with `--no-wait`.
struct AuthenticatorConfirmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "confirm", abstract: "Confirm a registration with the code from the email.")

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: "The identity id `register` printed.")
    var identity: String
    @Option(help: "The verification code from the email.")
    var code: String?
    @Flag(help: "Send a new code instead (the earlier one stops working).")
    var resend = false

    func run() async throws {
        do {
            if resend {
                try await options.authenticator.resendVerification(identity)
                print("A new code was sent.")
                return
            }
            try await options.authenticator.confirm(identity, code: try code ?? Terminal.ask("Enter the code from the email: "))
            print("Confirmed; choose a PIN with `gatehouse authenticator set-pin \(identity)`.")
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }
}

/// `gatehouse authenticator set-pin`: completes a confirmed registration.
struct AuthenticatorSetPINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "set-pin", abstract: "Choose the PIN of a confirmed registration.")

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: "The identity id.")
    var identity: String
    @OptionGroup var pin: PINInput

    func run() async throws {
        do {
            let authenticator = options.authenticator
            let record = try await authenticator.identity(identity)
            let registered = try await Self.choosePIN(for: identity, length: record.pinLength, input: pin, authenticator: authenticator)
            print("Registered \(registered.id) for \(registered.username ?? registered.email) at \(registered.serviceName).")
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }

    /// Asks for the PIN (twice on a terminal) and sets it.
    static func choosePIN(for id: String, length: Int, input: PINInput, authenticator: DeviceAuthenticator) async throws -> DeviceIdentityRecord {
        let pin = try input.read("Choose a \(length)-digit PIN: ")
        if !input.fromStandardInput, try Terminal.askSecret("Repeat the PIN: ") != pin {
            throw CommandError("The PINs differ; run `gatehouse authenticator set-pin \(id)` to try again.")
        }
        return try await authenticator.setPIN(pin, for: id)
    }
}
