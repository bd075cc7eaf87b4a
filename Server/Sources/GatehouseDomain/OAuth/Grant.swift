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

    package var scope: String { scopes.joined(separator: " ") }

    package init(id: String, clientID: String, userID: String, scopes: [String], authTime: Int64, methods: [String], resources: [String] = []) {
        self.id = id
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.authTime = authTime
        self.methods = methods
        self.resources = resources
    }
}
