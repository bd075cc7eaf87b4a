/// What a person allowed a third-party client: the scopes allowed so far, added to each time they allow more.
public struct Consent: Sendable, Codable, Equatable {
    /// The person, and the client they allowed.
    public var userID, clientID: String
    /// The scopes allowed so far.
    public var scopes: [String]
    /// When the person first allowed the client anything, and when they last allowed more (Unix seconds).
    public var grantedAt, updatedAt: Int64

    /// The scopes of `requested` this consent does not cover yet, in the order requested.
    public func missing(from requested: [String]) -> [String] {
        requested.filter { !scopes.contains($0) }
    }

    package init(userID: String, clientID: String, scopes: [String], grantedAt: Int64, updatedAt: Int64) {
        self.userID = userID
        self.clientID = clientID
        self.scopes = scopes
        self.grantedAt = grantedAt
        self.updatedAt = updatedAt
    }

    package enum CodingKeys: String, CodingKey {
        case scopes
        case userID = "user_id"
        case clientID = "client_id"
        case grantedAt = "granted_at"
        case updatedAt = "updated_at"
    }
}
