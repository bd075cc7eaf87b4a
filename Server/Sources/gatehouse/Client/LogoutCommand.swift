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
            print("Not signed in.")
            return
        }
        do {
            if browser {
                let open = !noBrowser
                try await user.logout(using: LoopbackUserAgent(timeout: browserTimeout) { Terminal.showInBrowser($0, "Sign out", open: open) })
            } else {
                try await user.logout()
            }
        } catch {
            _ = try? await whoIsCurrent(after: profile)
            throw CommandError(
                browser
                    ? "Signed out on this machine, but the sign-out at the server did not complete: \(error)"
                    : "Signed out on this machine, but the server could not revoke the tokens: \(error)")
        }
        if let next = try await whoIsCurrent(after: profile) {
            print("Signed out of \(profile.issuer). Now signed in as \(next).")
        } else {
            print("Signed out of \(profile.issuer).")
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
