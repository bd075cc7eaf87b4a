/// A person who can sign in. `id` is the stable subject (`sub`) of their tokens.
public struct User: Sendable, Equatable, Codable {
    public var id: String
    public var username: String
    public var email: String
    public var emailVerified: Bool
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    /// E.164, e.g. `+14155550100`; codes can be sent to it once it is verified.
    public var phoneNumber: String?
    public var phoneVerified: Bool
    public var passwordHash: String
    /// When the password was last set, for password expiry.
    public var passwordChangedAt: Int64
    public var isLocked: Bool
    public var createdAt: Int64
    public var updatedAt: Int64
    /// When the person last answered "Not now" to an offer to set up a second factor; the offer waits a while.
    public var enrollmentDeclinedAt: Int64? = nil
    /// Their postal address (the `address` claim), when they or an operator gave one.
    public var address: PostalAddress? = nil
    /// The language they chose (a BCP 47 tag such as `fr`), for pages and messages; `nil` until they choose one.
    public var locale: String? = nil

    /// The password hash of an account made by another identity provider, which has no password until one is set
    /// (by recovery): no password matches it.
    public static let noPassword = "!"

    /// Whether the account has a password to sign in with.
    public var hasPassword: Bool { passwordHash != Self.noPassword }

    package enum CodingKeys: String, CodingKey {
        case id, username, email, name
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case phoneVerified = "phone_number_verified"
        case passwordHash = "password_hash"
        case passwordChangedAt = "password_changed_at"
        case isLocked = "locked"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case enrollmentDeclinedAt = "enrollment_declined_at"
        case address, locale
    }

    /// Whether the username, being an email address, keeps the account's email from changing to `address`.
    package func usernameKeepsEmail(from address: String) -> Bool {
        username.contains("@") && address.lowercased() != username
    }
}

/// What a person tells about themselves when an account is created.
public struct UserProfile: Sendable, Equatable, Codable {
    public var email: String
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var phoneNumber: String?

    /// A profile; `name` defaults to the given and family names joined.
    public init(email: String, name: String? = nil, givenName: String? = nil, familyName: String? = nil, phoneNumber: String? = nil) {
        self.email = email
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        let joined = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        self.name = name ?? (joined.isEmpty ? nil : joined)
    }

    package enum CodingKeys: String, CodingKey {
        case email, name
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
    }
}
