import ArgumentParser
import Foundation
import Gatehouse
import QRCode

/// What `login`, `register`, `reset-password` and `enroll` share: which server and client, and how to end — signed in,
/// with the session kept for `whoami`, `token` and `logout`.
struct SignInOptions: ParsableArguments {
    @Option(help: "The server's issuer URL (default: $GATEHOUSE_ISSUER, else http://127.0.0.1:8080).")
    var issuer: String?
    @Option(name: .customLong("client-id"), help: "The public client to sign in with (the demo server registers gatehouse-cli).")
    var clientID = "gatehouse-cli"
    @Option(
        name: .customLong("redirect-uri"),
        help: "The redirect URI registered for that client (default: dev.gatehouse.cli:/callback; with --browser http://127.0.0.1/callback).")
    var redirectURI: String?
    @Option(help: "Space-separated scopes.")
    var scope = "openid profile email offline_access"
    @Option(help: "Seconds to wait for each answer from the server.")
    var timeout: Double = 30
    @Option(
        name: .customLong("identity-provider"),
        help: """
            Sign in with this identity provider (its id) in a browser. Its answer comes back to a port on 127.0.0.1, \
            so the client needs the redirect URI http://127.0.0.1/callback registered (any port matches).
            """)
    var identityProvider: String?
    @Flag(
        help: """
            Sign in with a code typed on another device (RFC 8628): the terminal shows the code, the page to enter it \
            on and a QR code of that page, then waits. The client needs the device grant (clients add --device-grant).
            """)
    var device = false
    @Flag(
        help: """
            Sign in on the server's own pages in a browser (authorization code with PKCE), as apps that use the system \
            browser do; the browser comes back to a port on 127.0.0.1, so the client needs the redirect URI \
            http://127.0.0.1/callback registered (any port matches).
            """)
    var browser = false
    @Flag(
        name: .customLong("no-push"),
        help: "With --browser: put the request's parameters in the browser's URL instead of pushing them to the server first (RFC 9126).")
    var noPush = false
    @Option(help: "With --browser: prompt values for the server, e.g. login (ask again even when the browser is signed in).")
    var prompt: String?
    @Option(name: .customLong("max-age"), help: "With --browser: the oldest sign-in, in seconds, the browser's session may reuse.")
    var maxAge: Int?
    @Option(
        name: .customLong("acr-values"),
        help: "Space-separated assurances to ask for, e.g. urn:gatehouse:acr:mfa for a second factor whatever the policy.")
    var acrValues: String?
    @Flag(
        help: """
            Bind the tokens to a key made for this sign-in (DPoP, RFC 9449): stolen from the session folder, they are of no use \
            without the key; `gatehouse token --json` shows token_type DPoP.
            """)
    var dpop = false
    @Flag(name: .customLong("no-browser"), help: "Print the browser's URL instead of opening a browser.")
    var noBrowser = false
    @Option(help: "Seconds to wait for the browser to come back.")
    var browserTimeout: Double = 300
    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var home: ClientHome

    /// Runs a flow of `kind` in the terminal and keeps the session it ends with.
    /// `email` signs in with a code sent there instead of a password.
    func run(_ kind: FlowKind, username: String?, passwordFromStandardInput: Bool, email: String? = nil) async throws {
        var password: String?
        if passwordFromStandardInput {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandError("--password-stdin was given but standard input holds no password.")
            }
            password = line
        }
        guard !(device && browser) else { throw CommandError("Choose one of --device and --browser.") }
        let profile = ClientHome.Profile(
            issuer: issuer ?? ProcessInfo.processInfo.environment["GATEHOUSE_ISSUER"] ?? "http://127.0.0.1:8080",
            clientID: clientID, redirectURI: redirectURI ?? (browser ? Self.loopbackRedirectURI : Self.appRedirectURI),
            scopes: scope.split(separator: " ").map(String.init)
        )
        // Accounts of the same server and client stay (`gatehouse accounts`); those of another are signed out first.
        try? await home.signOutAll(unless: profile)
        if device || browser {
            guard email == nil else { throw CommandError("--email signs in here in the terminal; leave out --device and --browser.") }
            guard kind == .login else { throw CommandError("--device and --browser sign in only; register or reset a password on the web page.") }
            let (user, claims) = try await (device ? signInOnDevice(profile) : signInWithBrowser(profile, username: username))
            try home.save(profile)
            return try await report(kind, user: user, claims: claims, profile: profile)
        }
        var chosen = identityProvider
        var success: SuccessNode?
        var saved = profile
        // At most one switch to a provider chosen on a node: the flow starts again with the loopback redirect URI.
        for _ in 0..<2 where success == nil {
            var first: Node?
            var current = profile
            if let providerID = chosen {
                let callback = try LoopbackRedirectListener()
                current.redirectURI = callback.redirectURI()
                first = try await signInWithProvider(providerID, callback: callback, profile: current, kind: kind, username: username)
            }
            let client = GatehouseClient(configuration: try configuration(for: current))
            do {
                success = try await TerminalFlow(client: client, kind: kind, username: username, password: password, acrValues: acrList, email: email)
                    .run(from: first)
                saved = current
            } catch let choice as TerminalFlow.ProviderChosen where chosen == nil {
                chosen = choice.providerID
            }
        }
        guard let success else { throw CommandError(Terminal.words("cli.unfinished")) }
        try home.save(saved)
        try await report(kind, user: success.user, claims: success.claims, profile: profile)
    }

    /// Prints who signed in: a line, or JSON with `--json`.
    private func report(_ kind: FlowKind, user: UserSession, claims: IDTokenClaims, profile: ClientHome.Profile) async throws {
        if json {
            try JSONOutput.print(
                SignInSummary(
                    issuer: claims.issuer, subject: claims.subject, username: claims.preferredUsername,
                    name: claims.name, email: claims.email, clientID: profile.clientID,
                    scope: await user.currentTokens?.scope))
        } else {
            let who = [claims.preferredUsername, claims.name.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            let done =
                switch kind {
                case .login: "cli.done.login"
                case .registration: "cli.done.registration"
                case .recovery: "cli.done.recovery"
                case .enrollment: "cli.done.enrollment"
                }
            print(Terminal.words(done, ["who": who.isEmpty ? claims.subject : who, "issuer": claims.issuer]))
        }
    }
}

extension SignInOptions {
    /// The redirect URI of the demo's terminal client for native flows.
    static let appRedirectURI = "dev.gatehouse.cli:/callback"
    /// The loopback redirect URI (RFC 8252 §7.3) the demo's terminal client registers for the browser.
    static let loopbackRedirectURI = "http://127.0.0.1/callback"

    private var acrList: [String]? { acrValues.map { $0.split(separator: " ").map(String.init) } }

    /// The SDK's configuration for `profile`, with a DPoP key provider when `--dpop` asks for bound tokens.
    private func configuration(for profile: ClientHome.Profile) throws -> GatehouseConfiguration {
        var configuration = try home.configuration(for: profile, timeout: timeout)
        if dpop { configuration.dpop = SoftwareDPoPKeys() }
        return configuration
    }

    /// A user agent for the terminal: the URL printed and, unless `--no-browser`, opened in the desktop's browser; the
    /// answer comes back to a loopback port.
    var terminalUserAgent: LoopbackUserAgent {
        let open = !noBrowser
        return LoopbackUserAgent(timeout: browserTimeout) { Terminal.showInBrowser($0, "cli.browser.continue", open: open) }
    }

    /// The server's own sign-in pages in the browser (authorization code with PKCE), back to a loopback port.
    private func signInWithBrowser(_ profile: ClientHome.Profile, username: String?) async throws -> (UserSession, IDTokenClaims) {
        let client = GatehouseClient(configuration: try configuration(for: profile))
        let options = BrowserSignInOptions(
            prompt: prompt.map { $0.split(separator: " ").map(String.init) } ?? [], loginHint: username, acrValues: acrList ?? [],
            maxAge: maxAge, pushesRequest: !noPush)
        let user = try await client.signInWithBrowser(using: terminalUserAgent, options: options)
        guard let claims = await user.claims else { throw CommandError(Terminal.words("cli.no_id_token")) }
        return (user, claims)
    }

    /// The device authorization grant in the terminal: the code, the page and its QR code, then the wait.
    private func signInOnDevice(_ profile: ClientHome.Profile) async throws -> (UserSession, IDTokenClaims) {
        let client = GatehouseClient(configuration: try configuration(for: profile))
        let authorization = try await client.startDeviceAuthorization()
        let page = authorization.verificationURIComplete ?? authorization.verificationURI
        if let symbol = try? QRCode(encoding: page.absoluteString) {
            Terminal.say(symbol.terminalText(colored: isatty(STDERR_FILENO) == 1))
        }
        let minutes = max(Int(authorization.expiresAt.timeIntervalSinceNow / 60), 1)
        Terminal.say(
            Terminal.words(
                "cli.device", ["url": authorization.verificationURI.absoluteString, "code": authorization.userCode, "minutes": "\(minutes)"]))
        let user = try await client.completeDeviceAuthorization(authorization)
        guard let claims = await user.claims else { throw CommandError(Terminal.words("cli.no_id_token")) }
        return (user, claims)
    }

    /// Starts a flow whose redirect URI is `callback`'s, opens (or prints) the provider's page, waits for the browser
    /// to come back, and returns where the flow went.
    private func signInWithProvider(
        _ providerID: String, callback: LoopbackRedirectListener, profile: ClientHome.Profile, kind: FlowKind, username: String?
    )
        async throws -> Node
    {
        let client = GatehouseClient(configuration: try configuration(for: profile))
        let first = await client.start(kind, loginHint: username, acrValues: acrList)
        guard case .continue(let step) = first else { return first }
        guard let provider = step.identityProviders.first(where: { $0.providerID == providerID }) else {
            throw CommandError(Terminal.words("cli.unknown_provider", ["provider": providerID]))
        }
        let open = !noBrowser
        let wait = browserTimeout
        let browser = ClosureIdentityProviderBrowser { url, _ in
            Terminal.showInBrowser(url, "cli.browser.provider", ["provider": provider.label], open: open)
            return try await callback.wait(
                timeout: wait, message: Terminal.words("cli.browser.provider_done"), language: TerminalLanguage.tag)
        }
        return await step.next(signingInWith: provider, browser: browser)
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
