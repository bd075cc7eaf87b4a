import ArgumentParser
import Gatehouse

/// `gatehouse logout`: revokes the session at the server and forgets it here.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: revoke the tokens at the server and remove them from this machine.",
        discussion: "Signs out the current account; another one kept by `gatehouse login` (see `gatehouse accounts`) becomes current."
    )

    @Flag(
        help: """
            Also end the browser's session at the server (its end-session page, in the browser), after a login --browser; \
            the client needs http://127.0.0.1/callback registered as a post-logout redirect URI.
            """)
    var browser = false
    @Flag(name: .customLong("no-browser"), help: "With --browser: print the URL instead of opening a browser.")
    var noBrowser = false
    @Option(help: "Seconds to wait for the browser to come back.")
    var browserTimeout: Double = 300
    @OptionGroup var home: ClientHome

    func run() async throws {
        guard let (user, profile) = try await home.currentUser() else {
            try home.removeProfile()
            print(Terminal.words("cli.not_signed_in"))
            return
        }
        do {
            if browser {
                let open = !noBrowser
                try await user.logout(using: LoopbackUserAgent(timeout: browserTimeout) { Terminal.showInBrowser($0, "cli.browser.sign_out", open: open) })
            } else {
                try await user.logout()
            }
        } catch {
            _ = try? await whoIsCurrent(after: profile)
            throw CommandError(Terminal.words(browser ? "cli.signed_out_locally.browser" : "cli.signed_out_locally.server", ["reason": "\(error)"]))
        }
        if let next = try await whoIsCurrent(after: profile) {
            print(Terminal.words("cli.signed_out_next", ["issuer": profile.issuer, "next": next]))
        } else {
            print(Terminal.words("cli.signed_out", ["issuer": profile.issuer]))
        }
    }

    /// The account that is current now, if another one is kept; without one the profile goes too.
    private func whoIsCurrent(after profile: ClientHome.Profile) async throws -> String? {
        let client = GatehouseClient(configuration: try home.configuration(for: profile))
        if let next = try await client.accounts().first(where: \.isDefault) { return AccountsCommand.name(of: next) }
        try home.removeProfile()
        return nil
    }
}
