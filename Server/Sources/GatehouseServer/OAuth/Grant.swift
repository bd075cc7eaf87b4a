/// What a user allowed a client: the root of a family of codes and tokens.
///
/// Every code, access token and refresh token that descends from one sign-in carries the same `id`,
/// so detecting a replayed code or refresh token can revoke the whole family at once.
struct Grant: Sendable, Equatable {
    var id: String
    var clientID: String
    var userID: String
    var scopes: [String]
    var authTime: Int64
    /// Authentication methods references (`amr`).
    var methods: [String]

    var scope: String { scopes.joined(separator: " ") }
}
