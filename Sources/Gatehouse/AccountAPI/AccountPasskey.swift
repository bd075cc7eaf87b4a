import Foundation

/// A passkey of the account (`GET /account/v1/passkeys`).
public struct AccountPasskey: Sendable, Equatable, Codable {
    /// Its id, for ``AccountClient/removePasskey(id:)``.
    public var id: String
    /// The name the person gave it.
    public var name: String
    /// Whether it may be synced to the person's other devices (backup eligible).
    public var synced: Bool
    /// When it was added.
    public var createdAt: Date
    /// When it last signed in, if it has.
    public var lastUsedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, name, synced
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}
