import Foundation

/// What the person allowed a third-party application (`GET /account/v1/consents`).
public struct AccountConsent: Sendable, Equatable, Codable {
    /// The application's client id, for ``AccountClient/revokeConsent(clientID:)``.
    public var clientID: String
    /// The scopes allowed so far.
    public var scopes: [String]
    /// When the person first allowed the application anything.
    public var grantedAt: Date
    /// When they last allowed it more.
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case scopes
        case clientID = "client_id"
        case grantedAt = "granted_at"
        case updatedAt = "updated_at"
    }
}
