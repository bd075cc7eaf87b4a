import Foundation

/// The signed-in person's account as the account API shows it (`GET /account/v1`).
public struct AccountProfile: Sendable, Equatable, Codable {
    /// The account's id: the `sub` of its ID tokens.
    public var id: String
    /// The name the person signs in with.
    public var username: String
    /// The email address.
    public var email: String
    /// Whether the address was confirmed (a code sent to it, or a provider trusted for it).
    public var emailVerified: Bool
    /// The full name.
    public var name: String?
    /// The given name.
    public var givenName: String?
    /// The family name.
    public var familyName: String?
    /// The phone number (E.164).
    public var phoneNumber: String?
    /// Whether the number was confirmed with a code.
    public var phoneNumberVerified: Bool
    /// Whether the account has a password (one made by email sign-in or another provider may not).
    public var hasPassword: Bool
    /// When the account was created.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, username, email, name
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case hasPassword = "has_password"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
