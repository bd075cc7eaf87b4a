import ArgumentParser

/// `gatehouse register`: creates an account through the server's registration flow, then signs in.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create an account on a Gatehouse server from the terminal (the server must allow registration).",
        discussion: """
            Asks for what the server's registration policy wants (first and last name, email, username, password,
            maybe a mobile number), then for the code sent to the email (and phone). With the demo server the codes
            are in the development outbox: run `gatehouse outbox` in the server's folder.
            """
    )

    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var options: SignInOptions

    func run() async throws {
        try await options.run(.registration, username: credentials.username, passwordFromStandardInput: credentials.passwordFromStandardInput)
    }
}
