import ArgumentParser
import Gatehouse

/// `gatehouse logout`: revokes the session at the server and forgets it here.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: revoke the tokens at the server and remove them from this machine."
    )

    @OptionGroup var home: ClientHome

    func run() async throws {
        guard let (user, profile) = try await home.currentUser() else {
            try home.removeProfile()
            print("Not signed in.")
            return
        }
        do {
            try await user.logout()
        } catch {
            try home.removeProfile()
            throw CommandError("Signed out on this machine, but the server could not revoke the tokens: \(error)")
        }
        try home.removeProfile()
        print("Signed out of \(profile.issuer).")
    }
}
