import ArgumentParser

/// `gatehouse login`: signs in through the provider's login flow, as an app built on the SDK would.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a Gatehouse server from the terminal, step by step.",
        discussion: """
            Walks whatever flow the server runs: one prompt per field, secrets hidden, choices as numbered lists,
            second factors (an authenticator app's QR code is drawn in the terminal), codes sent by email or SMS,
            a password change when the password expired, and unlocking a locked account by email code.
            The session is kept in an owner-only encrypted folder, for `whoami`, `token` and `logout`.
            Scripts: gatehouse login --username alice --password-stdin < password.txt
            Without a password, where the server offers it: gatehouse login --email alice@example.com
            """
    )

    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var options: SignInOptions
    @Option(help: "Sign in with a code sent to this email address instead of a password, where the server offers it.")
    var email: String?

    func validate() throws {
        if email != nil, credentials.passwordFromStandardInput || credentials.username != nil {
            throw ValidationError("--email signs in without a username or password: leave out --username and --password-stdin.")
        }
    }

    func run() async throws {
        try await options.run(
            .login, username: credentials.username, passwordFromStandardInput: credentials.passwordFromStandardInput, email: email)
    }
}
