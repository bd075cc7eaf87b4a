import Foundation

/// A security event of the account from the provider's audit trail (`GET /account/v1/events`), newest first.
public struct AccountEvent: Sendable, Equatable, Codable {
    /// The event's id; ids grow with time.
    public var id: String
    /// What happened, e.g. `sign_in.succeeded`, `password.changed`, `consent.revoked`.
    public var type: String
    /// When it happened.
    public var occurredAt: Date
    /// Who did it: `user:ID` for the person, an admin token, or the operator.
    public var actor: String
    /// The application the event came through, if any.
    public var clientID: String?
    /// The client address the request came from.
    public var address: String?
    /// The browser or app that made the request, as it named itself.
    public var userAgent: String?
    /// What the event records beside (never a secret).
    public var details: [String: String]

    enum CodingKeys: String, CodingKey {
        case id, type, actor, address, details
        case occurredAt = "occurred_at"
        case clientID = "client_id"
        case userAgent = "user_agent"
    }
}
