/// An identity at another provider, linked to a Gatehouse account: signing in there signs in to the account.
public struct FederatedIdentity: Sendable, Equatable, Codable {
    /// The provider's id in the configuration.
    public var providerID: String
    /// The provider's subject for the person.
    public var subject: String
    public var userID: String
    /// The address the provider gave when the identity was linked, for operators to recognise it.
    public var email: String?
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    package enum CodingKeys: String, CodingKey {
        case subject, email
        case providerID = "provider"
        case userID = "user_id"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}
