import ArgumentParser

/// `gatehouse enroll`: changes two-step verification (an authenticator app, a phone number, email codes, or new
/// recovery codes).
struct EnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Set up or replace your authenticator app or phone number, get codes by email, or make new recovery codes.",
        discussion: """
            Signs in with your password and any second factor the account already has (always asked here, whatever
            the sign-on policy), then lets you choose what the server's policy offers: a new authenticator app (its QR
            code is drawn in the terminal; the old app's codes stop working once the new one is confirmed), a phone
            number (codes by text message or call, confirmed by a code; the previous number is told), email codes,
            or new recovery codes (the old ones stop working). The account's email address is told about the change.
            """
    )

    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var options: SignInOptions

    func run() async throws {
        try await options.run(.enrollment, username: credentials.username, passwordFromStandardInput: credentials.passwordFromStandardInput)
    }
}
