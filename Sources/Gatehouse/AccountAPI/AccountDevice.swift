import Foundation

/// An authenticator app that signs in to the account with a QR code (`GET /account/v1/devices`).
public struct AccountDevice: Sendable, Equatable, Codable {
    /// Its id, for ``AccountClient/removeDevice(id:)``.
    public var id: String
    /// The name the app gave itself when it registered.
    public var deviceName: String?
    /// `registered` when it signs in; `blocked` after too many wrong PINs; earlier states while it registers.
    public var state: String
    /// When it registered.
    public var createdAt: Date
    /// When it last approved a sign-in, if it has.
    public var lastUsedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, state
        case deviceName = "device_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }
}
