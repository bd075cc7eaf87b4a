import Foundation

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
    /// The claims the relying party asked for by name (`claims`), when it did.
    package var requestedClaims: ClaimsRequest?

    package var scope: String { scopes.joined(separator: " ") }

    /// ``requestedClaims`` as stored: JSON, or NULL for none.
    package var storedClaims: String? {
        requestedClaims.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Requested claims as stored, read back.
    package static func requestedClaims(stored: String?) -> ClaimsRequest? {
        stored.flatMap { try? JSONDecoder().decode(ClaimsRequest.self, from: Data($0.utf8)) }
    }

    package init(
        id: String, clientID: String, userID: String, scopes: [String], authTime: Int64, methods: [String], resources: [String] = [],
        sessionID: String? = nil, requestedClaims: ClaimsRequest? = nil
    ) {
        self.sessionID = sessionID
        self.requestedClaims = requestedClaims
        self.id = id
        self.clientID = clientID
        self.userID = userID
        self.scopes = scopes
        self.authTime = authTime
        self.methods = methods
        self.resources = resources
    }
}
