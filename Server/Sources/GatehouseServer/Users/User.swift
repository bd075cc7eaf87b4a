/// A person who can sign in. `id` is the stable subject (`sub`) of their tokens.
public struct User: Sendable, Equatable, Codable {
    public var id: String
    public var username: String
    public var email: String
    public var emailVerified: Bool
    public var name: String?
    public var passwordHash: String
    public var isLocked: Bool
    public var createdAt: Int64
    public var updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, username, email, name
        case emailVerified = "email_verified"
        case passwordHash = "password_hash"
        case isLocked = "locked"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
