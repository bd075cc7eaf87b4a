/// What a user allowed a client: the root of a family of codes and tokens.
///
/// Every code, access token and refresh token that descends from one sign-in carries the same `id`,
/// so detecting a replayed code or refresh token can revoke the whole family at once.
package struct Grant: Sendable, Equatable {
    package var id: String
    package var clientID: String
    package var userID: String
    package var scopes: [String]
    package var authTime: Int64
    /// Authentication methods references (`amr`).
    package var methods: [String]
    /// The resources the authorization request named (RFC 8707): each token request may ask for a token for one.
    package var resources: [String]
    /// The public id of the browser session that signed in (`sid`), when one did: ID tokens carry it, and the session's
    /// end is what logout notifications tell. `nil` for a native app's flow, a device or a client of its own.
    package var sessionID: String?

    package var scope: String { scopes.joined(separator: " ") }

    package init(
        id: String, clientID: String, userID: String, scopes: [String], authTime: Int64, methods: [String], resources: [String] = [],
        sessionID: String? = nil
    ) {
        self.sessionID = sessionID
        self.id = id
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.authTime = authTime
        self.methods = methods
        self.resources = resources
    }
}
