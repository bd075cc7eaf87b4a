import ArgumentParser

/// `gatehouse reset-password`: resets a forgotten password with a code by email or SMS, then signs in.
struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Reset a forgotten password with a code sent by email or text message.",
        discussion: """
            Asks where to send the code, for the code, for any second factor the account has enrolled (a reset never
            skips it), then for the new password. Signs you out everywhere else.
            """
    )

    @Option(help: "The username or email of the account; asked for when absent.")
    var username: String?
    @OptionGroup var options: SignInOptions

    func run() async throws {
        try await options.run(.recovery, username: username, passwordFromStandardInput: false)
    }
}
