import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse token`: prints a fresh access token, e.g. for `curl -H "Authorization: Bearer $(gatehouse token)"`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a valid access token for the signed-in user, refreshed first when it is about to expire."
    )

    @Flag(help: "Print the token with its type and expiry as JSON.")
    var json = false
    @OptionGroup var home: ClientHome

    func run() async throws {
        let (user, _) = try await home.signedInUser()
        let token = try await user.accessToken()
        guard json else {
            print(token)
            return
        }
        let tokens = await user.currentTokens
        try JSONOutput.print(
            AccessTokenOutput(
                accessToken: token, tokenType: tokens?.tokenType ?? "Bearer",
                expiresAt: ISO8601DateFormatter().string(from: tokens?.expiresAt ?? Date())))
    }
}

struct AccessTokenOutput: Encodable {
    let accessToken: String
    let tokenType: String
    let expiresAt: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
    }
}
