import Foundation

/// Another provider the person signs in with (`GET /account/v1/identities`).
public struct AccountIdentity: Sendable, Equatable, Codable {
    /// The provider's id, for ``AccountClient/unlinkIdentity(provider:)``.
    public var provider: String
    /// The address the provider gave when it was linked, if any.
    public var email: String?
    /// When it was linked.
    public var createdAt: Date
    /// When it last signed in, if it has.
    public var lastUsedAt: Date?

    enum CodingKeys: String, CodingKey {
        case provider, email
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}
