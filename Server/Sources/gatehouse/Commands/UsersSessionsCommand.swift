import ArgumentParser
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

extension UsersCommand {
    /// `gatehouse users sessions NAME`: where a user is signed in (browser sessions and token grants), to end one.
    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List where a user is signed in (browser sessions and token grants), or end one.",
            discussion: """
                A browser session ended asks that browser to sign in again; a revoked grant's access and refresh \
                tokens stop working at once. To end everything at once, lock the user or reset their password.
                """)

        @Argument(help: "The user's name.")
        var username: String
        // Ids are base64url and may begin with '-': the word after the option is its value, whatever it looks like.
        @Option(parsing: .unconditional, help: "End the browser session with this id.")
        var end: String?
        @Option(parsing: .unconditional, help: "Revoke the grant with this id (every token of its family).")
        var revoke: String?
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        /// What is listed, the same from the database and from the admin API.
        struct Listing: Encodable {
            var sessions: [ActiveSessions.BrowserSessionSummary]
            var grants: [ActiveSessions.Grant]
        }

        func validate() throws {
            if end != nil, revoke != nil { throw ValidationError("End a session or revoke a grant, one at a time.") }
        }

        func run() async throws {
            let name = username.lowercased()
            let message: String? = try await store.withOperations { operations in
                let user = try await operations.user(named: name)
                if let session = end {
                    try await operations.endBrowserSession(session, of: user.id)
                    return "Ended \(name)'s browser session \(session)."
                }
                if let grant = revoke {
                    let client = try await operations.revokeGrant(grant, of: user.id)
                    return "Revoked \(name)'s grant \(grant) at \(client); its tokens work no more."
                }
                let listing = Listing(sessions: try await operations.browserSessions(of: user.id), grants: try await operations.grants(of: user.id))
                if output.json {
                    try JSONOutput.print(listing)
                    return nil
                }
                return Self.table(listing, name: name)
            }
            if let message { print(message) }
        }

        private static func table(_ listing: Listing, name: String) -> String {
            guard !listing.sessions.isEmpty || !listing.grants.isEmpty else { return "\(name) is signed in nowhere." }
            var lines: [String] = []
            if !listing.sessions.isEmpty {
                var table = TextTable(headers: ["BROWSER SESSION", "METHODS", "SIGNED IN", "LAST SEEN", "EXPIRES"])
                table.rows = listing.sessions.map {
                    [
                        $0.id, $0.methods.joined(separator: " "), Timestamp.format($0.authenticatedAt), Timestamp.format($0.lastSeenAt),
                        Timestamp.format($0.expiresAt),
                    ]
                }
                lines.append(table.render())
            }
            if !listing.grants.isEmpty {
                var table = TextTable(headers: ["GRANT", "CLIENT", "SCOPES", "LAST ISSUED", "EXPIRES"])
                table.rows = listing.grants.map {
                    [$0.id, $0.clientID, $0.scopes.joined(separator: " "), Timestamp.format($0.lastIssuedAt), Timestamp.format($0.expiresAt)]
                }
                lines.append(table.render())
            }
            return lines.joined(separator: "\n")
        }
    }
}
