import ArgumentParser
import Foundation
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
            if let remote = try store.remote() { return try await runRemotely(remote, name: name) }
            let message: String? = try await store.withDatabase { configuration, database in
                guard let user = try await UserStore(database: database).find(username: name) else { throw CommandError("There is no user named \(name).") }
                let active = ActiveSessions(database: database, idleTimeout: configuration.tokens.sessionIdle)
                if let session = end {
                    let ended = try await database.transaction { _ in
                        guard try await active.endBrowserSession(session, of: user.id) else { return false }
                        try await OperatorAudit.record(.sessionEnded, user: user.id, details: ["session": session], in: database)
                        return true
                    }
                    guard ended else { throw CommandError("\(name) has no browser session \(session).") }
                    return "Ended \(name)'s browser session \(session)."
                }
                if let grant = revoke {
                    let client = try await database.transaction { _ in
                        guard let client = try await active.revokeGrant(grant, of: user.id) else { return String?.none }
                        try await OperatorAudit.record(.tokenRevoked, user: user.id, client: client, details: ["grant": grant], in: database)
                        return client
                    }
                    guard let client else { throw CommandError("\(name) has no live grant \(grant).") }
                    return "Revoked \(name)'s grant \(grant) at \(client); its tokens work no more."
                }
                let listing = Listing(sessions: try await active.browserSessions(of: user.id), grants: try await active.grants(of: user.id))
                if output.json {
                    try JSONOutput.print(listing)
                    return nil
                }
                return Self.table(listing, name: name)
            }
            if let message { print(message) }
        }

        /// The same through the admin API.
        private func runRemotely(_ remote: RemoteAdmin, name: String) async throws {
            let user = try await remote.user(named: name)
            if let session = end {
                try await remote.send("DELETE", "/admin/v1/users/\(user.id)/sessions/\(RemoteAdmin.escaped(session))")
                return print("Ended \(name)'s browser session \(session).")
            }
            if let grant = revoke {
                try await remote.send("DELETE", "/admin/v1/users/\(user.id)/grants/\(RemoteAdmin.escaped(grant))")
                return print("Revoked \(name)'s grant \(grant); its tokens work no more.")
            }
            let listing = Listing(
                sessions: try await remote.send("GET", "/admin/v1/users/\(user.id)/sessions", as: RemoteAdmin.Page<ActiveSessions.BrowserSessionSummary>.self)
                    .items,
                grants: try await remote.send("GET", "/admin/v1/users/\(user.id)/grants", as: RemoteAdmin.Page<ActiveSessions.Grant>.self).items)
            if output.json { return try JSONOutput.print(listing) }
            print(Self.table(listing, name: name))
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
