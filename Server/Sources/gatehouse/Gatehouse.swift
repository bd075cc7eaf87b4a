import ArgumentParser

/// `gatehouse`: run the identity server and manage it.
@main
struct GatehouseCommand: AsyncParsableCommand {
    /// The release this build is (`gatehouse --version`, and `gatehouse_build_info` in the metrics).
    static let version = "0.1.0-dev"

    static let configuration = CommandConfiguration(
        commandName: "gatehouse",
        abstract: "Gatehouse, a self-hosted identity server and OpenID Connect provider.",
        version: version,
        subcommands: [
            ServeCommand.self, UsersCommand.self, ClientsCommand.self, ResourcesCommand.self, RegistrationTokensCommand.self, KeysCommand.self,
            MigrateCommand.self, CopyCommand.self, BackupCommand.self, RestoreCommand.self,
            DatabaseCommand.self,
            OutboxCommand.self, LoginCommand.self, RegisterCommand.self, ResetPasswordCommand.self, EnrollCommand.self, WhoamiCommand.self,
            TokenCommand.self, LogoutCommand.self, AccountsCommand.self, AccountCommand.self, AuthenticatorCommand.self, DevicesCommand.self,
            ProvidersCommand.self,
            EventsCommand.self,
            AdminTokensCommand.self,
            AdminsCommand.self,
            HashRateCommand.self,
            SignRateCommand.self,
        ]
    )

    /// Runs the command as ArgumentParser does, with one difference: an error of the SDK is said in the terminal's
    /// language (``TerminalLanguage``), as the tool's own messages are.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: TerminalLanguage.worded(error))
        }
    }
}
