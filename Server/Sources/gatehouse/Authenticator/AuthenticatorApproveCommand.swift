import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse authenticator approve`: what the phone does after scanning a QR code.
struct AuthenticatorApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve (or deny) a QR sign-in with the PIN.",
        discussion: "Pass the QR code's text (e.g. from `zbarimg --raw`), or the service URL and access code as `URL#CODE`."
    )

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: ArgumentHelp("What the QR code says.", valueName: "qr-payload"))
    var payload: String
    @Option(help: "The identity to answer with, when there are several for the service.")
    var identity: String?
    @Flag(help: "Cancel the sign-in instead; the browser says it was cancelled.")
    var deny = false
    @OptionGroup var pin: PINInput

    func run() async throws {
        let authenticator = options.authenticator
        do {
            let scanned = try QRLoginPayload(parsing: payload)
            // Checks that this app may talk to the service (406) and is recent enough (412) before anything else.
            let service = try await authenticator.service(at: scanned.serviceURL)
            let request = try await authenticator.begin(scanned, identityID: identity)
            request.describe(serviceName: service.name, deny: "cli.app.not_you")
            if deny {
                try await authenticator.abort(request)
                return print(Terminal.words("cli.app.denied"))
            }
            // A person at a terminal may retry a wrong PIN while attempts remain; a script gets one try.
            while true {
                do {
                    try await authenticator.approve(request, pin: try pin.read(Terminal.question("cli.app.pin")))
                    return print(Terminal.words("cli.app.approved"))
                } catch DeviceAuthenticatorError.wrongPIN(let remaining) where !pin.fromStandardInput && remaining > 0 {
                    Terminal.say(DeviceAuthenticatorError.wrongPIN(attemptsRemaining: remaining).commandError.description)
                }
            }
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }
}

/// `gatehouse authenticator sign-in`: the identity signs this terminal's client in, with the PIN, like an app signing itself in.
struct AuthenticatorSignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in",
        abstract: "Sign the terminal client in (as `gatehouse login` does) with a device identity and its PIN.",
        discussion: "The client's sign-on policy must offer sign-in with the app. Afterwards `gatehouse whoami` and `gatehouse token` use the session."
    )

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: "The identity id (see `list`).")
    var identity: String
    @Option(name: .customLong("client-id"), help: "The client to sign in to.")
    var clientID = "gatehouse-cli"
    @Option(name: .customLong("redirect-uri"), help: "The client's registered redirect URI.")
    var redirectURI = "dev.gatehouse.cli:/callback"
    @OptionGroup var pin: PINInput

    func run() async throws {
        let authenticator = options.authenticator
        let record: DeviceIdentityRecord
        do {
            record = try await authenticator.identity(identity)
        } catch {
            throw error.commandError
        }
        let profile = ClientHome.Profile(
            issuer: record.issuer, clientID: clientID, redirectURI: redirectURI,
            scopes: ["openid", "profile", "email", "offline_access"])
        let client = GatehouseClient(configuration: try options.home.configuration(for: profile))
        do {
            let user = try await authenticator.signIn(with: identity, pin: try pin.read(Terminal.question("cli.app.pin")), client: client)
            try options.home.save(profile)
            let claims = await user.claims
            print(Terminal.words("cli.done.login", ["who": claims?.preferredUsername ?? claims?.subject ?? identity, "issuer": record.issuer]))
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }
}
