import Foundation

/// An account signed in on this device for the configured provider and client: who it is, for an account switcher.
/// Holds no secret; ``GatehouseClient/user(for:)`` opens its session.
public struct StoredAccount: Sendable, Equatable, Identifiable, Codable {
    /// The user's subject at the provider (`sub`): what tells accounts apart.
    public let subject: String
    /// The username (`preferred_username`) at the last sign-in, when the provider said.
    public var username: String?
    /// The user's name at the last sign-in, when the provider said.
    public var name: String?
    /// The email address at the last sign-in, when the provider said.
    public var email: String?
    /// When this account last signed in on this device.
    public var signedInAt: Date
    /// How its tokens are guarded on the device.
    public var protection: SessionProtection
    /// Whether it is the account ``GatehouseClient/currentUser()`` opens.
    public internal(set) var isDefault: Bool = false

    /// The subject: accounts are one per user.
    public var id: String { subject }

    init(
        subject: String, username: String?, name: String?, email: String?, signedInAt: Date, protection: SessionProtection
    ) {
        self.subject = subject
        self.username = username
        self.name = name
        self.email = email
        self.signedInAt = signedInAt
        self.protection = protection
    }

    enum CodingKeys: String, CodingKey {
        case subject, username, name, email, protection
        case signedInAt = "signed_in_at"
    }
}
