import ArgumentParser
import Foundation
import Gatehouse

/// What `login`, `register`, `reset-password` and `enroll` share: which server and client, and how to end — signed in,
/// with the session kept for `whoami`, `token` and `logout`.
struct SignInOptions: ParsableArguments {
    @Option(help: "The server's issuer URL (default: $GATEHOUSE_ISSUER, else http://127.0.0.1:8080).")
    var issuer: String?
    @Option(name: .customLong("client-id"), help: "The public client to sign in with (the demo server registers gatehouse-cli).")
    var clientID = "gatehouse-cli"
    @Option(name: .customLong("redirect-uri"), help: "The redirect URI registered for that client.")
    var redirectURI = "dev.gatehouse.cli:/callback"
    @Option(help: "Space-separated scopes.")
    var scope = "openid profile email offline_access"
    @Option(help: "Seconds to wait for each answer from the server.")
    var timeout: Double = 30
    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var home: ClientHome

    /// Runs a flow of `kind` in the terminal and keeps the session it ends with.
    func run(_ kind: FlowKind, username: String?, passwordFromStandardInput: Bool) async throws {
        var password: String?
        if passwordFromStandardInput {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandError("--password-stdin was given but standard input holds no password.")
            }
            password = line
        }
        let profile = ClientHome.Profile(
            issuer: issuer ?? ProcessInfo.processInfo.environment["GATEHOUSE_ISSUER"] ?? "http://127.0.0.1:8080",
            clientID: clientID, redirectURI: redirectURI, scopes: scope.split(separator: " ").map(String.init)
        )
        let client = GatehouseClient(configuration: try home.configuration(for: profile, timeout: timeout))
        // Leave any earlier session first, so two users' tokens never mix.
        if let (previous, _) = try? await home.currentUser() { try? await previous.logout() }
        let success = try await TerminalFlow(client: client, kind: kind, username: username, password: password).run()
        try home.save(profile)
        let claims = success.claims
        if json {
            try JSONOutput.print(
                SignInSummary(
                    issuer: claims.issuer, subject: claims.subject, username: claims.preferredUsername,
                    name: claims.name, email: claims.email, clientID: profile.clientID,
                    scope: await success.user.currentTokens?.scope))
        } else {
            let who = [claims.preferredUsername, claims.name.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            let done =
                switch kind {
                case .login: "Signed in"
                case .registration: "Registered and signed in"
                case .recovery: "Password reset; signed in"
                case .enrollment: "Two-step verification updated; signed in"
                }
            print("\(done) as \(who.isEmpty ? claims.subject : who) at \(claims.issuer).")
        }
    }
}

/// What `gatehouse login --json` prints: who signed in, never a token.
struct SignInSummary: Encodable {
    let signedIn = true
    let issuer: String
    let subject: String
    let username: String?
    let name: String?
    let email: String?
    let clientID: String
    let scope: String?

    enum CodingKeys: String, CodingKey {
        case issuer, subject, username, name, email, scope
        case signedIn = "signed_in"
        case clientID = "client_id"
    }
}
