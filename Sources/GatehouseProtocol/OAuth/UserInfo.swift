/// Standard claims about the signed-in user (OpenID Connect Core §5.1), as the userinfo endpoint returns them.
/// Which claims are present depends on the granted scopes: `profile` adds the name claims, `email` the email claims.
public struct UserInfo: Codable, Sendable, Equatable {
    /// The user's subject identifier (`sub`): stable, never reassigned.
    public var subject: String
    /// The user's full name, with `profile`.
    public var name: String?
    /// The username, with `profile`.
    public var preferredUsername: String?
    /// The email address, with `email`.
    public var email: String?
    /// Whether the address was confirmed, with `email`.
    public var emailVerified: Bool?
    /// When the profile last changed, in seconds since 1970, with `profile`.
    public var updatedAt: Int?
    /// The language the person chose (a BCP 47 tag such as `fr`), with `profile`; absent while they chose none.
    public var locale: String?

    /// Claims about the user `subject`.
    public init(
        subject: String, name: String? = nil, preferredUsername: String? = nil, email: String? = nil, emailVerified: Bool? = nil, updatedAt: Int? = nil,
        locale: String? = nil
    ) {
        self.subject = subject
        self.name = name
        self.preferredUsername = preferredUsername
        self.email = email
        self.emailVerified = emailVerified
        self.updatedAt = updatedAt
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case name
        case preferredUsername = "preferred_username"
        case email
        case emailVerified = "email_verified"
        case updatedAt = "updated_at"
        case locale
    }
}
