/// Standard claims about the signed-in user (OpenID Connect Core §5.1), as the userinfo endpoint returns them.
/// Which claims are present depends on the granted scopes: `profile` adds the name claims, `email` the email claims.
public struct UserInfo: Codable, Sendable, Equatable {
    public var subject: String
    public var name: String?
    public var preferredUsername: String?
    public var email: String?
    public var emailVerified: Bool?
    public var updatedAt: Int?

    public init(subject: String, name: String? = nil, preferredUsername: String? = nil, email: String? = nil, emailVerified: Bool? = nil, updatedAt: Int? = nil)
    {
        self.subject = subject
        self.name = name
        self.preferredUsername = preferredUsername
        self.email = email
        self.emailVerified = emailVerified
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case name
        case preferredUsername = "preferred_username"
        case email
        case emailVerified = "email_verified"
        case updatedAt = "updated_at"
    }
}
