import ArgumentParser
import Gatehouse

/// `gatehouse whoami`: the signed-in user's claims from the userinfo endpoint.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show who is signed in (from the server's userinfo endpoint, refreshing the session if needed)."
    )

    @Flag(help: "Print the claims as JSON.")
    var json = false
    @OptionGroup var home: ClientHome

    func run() async throws {
        let (user, profile) = try await home.signedInUser()
        let info = try await user.userinfo(cache: false)
        if json {
            try JSONOutput.print(info)
            return
        }
        let rows: [(String, String?)] = [
            ("subject", info.subject), ("username", info.preferredUsername), ("name", info.name),
            ("email", info.email.map { $0 + (info.emailVerified == true ? " (verified)" : "") }), ("issuer", profile.issuer),
        ]
        for (name, value) in rows { if let value { print("\(name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(value)") } }
    }
}
