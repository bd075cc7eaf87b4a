import Foundation

/// One identity on this device: an account at one service, as the device keeps it.
///
/// Its signing key is stored only sealed under a key that the server's PRF evaluation of the PIN yields, so
/// the record alone does not let anyone check a PIN guess. The device secret authenticates requests; keep
/// records in a ``TokenStorage`` (``EncryptedFileTokenStorage``, or `KeychainTokenStorage` on Apple platforms).
public struct DeviceIdentityRecord: Codable, Sendable, Equatable, Identifiable {
    /// Where the registration stands.
    public enum State: String, Codable, Sendable {
        /// Waiting for the email's code (or link).
        case registrationStarted = "registration_started"
        /// The email is confirmed; choose a PIN (``DeviceAuthenticator/setPIN(_:for:)``).
        case verified
        /// Ready to approve sign-ins.
        case registered
        /// Too many wrong PINs: delete it and register again.
        case blocked
    }

    /// The identity's id at the service.
    public var id: String
    /// The service URL the identity was registered at.
    public var serviceURL: URL
    /// The service's name, as it describes itself.
    public var serviceName: String
    /// The service's issuer.
    public var issuer: String
    /// The address the identity was registered with.
    public var email: String
    /// The account's username, known once the registration is complete.
    public var username: String?
    /// The name the device gave itself at registration.
    public var deviceName: String?
    /// How far the registration got, or whether the identity is blocked.
    public var state: State
    /// The PIN length the service asks for.
    public var pinLength: Int
    /// When the registration started.
    public var createdAt: Date
    /// The bearer secret of this identity's requests.
    var deviceSecret: String
    /// Where the service takes this identity's requests (from its checked description).
    var endpoints: AuthenticatorEndpoints
    /// The server's VOPRF public key for this identity (x9.63), against which every evaluation's proof is checked.
    var oprfPublicKey: Data?
    /// The ECDSA P-256 private key, AES-GCM sealed under the PIN's PRF output.
    var sealedSigningKey: Data?

    enum CodingKeys: String, CodingKey {
        case id, issuer, email, username, state
        case serviceURL = "service_url"
        case serviceName = "service_name"
        case deviceName = "device_name"
        case pinLength = "pin_length"
        case createdAt = "created_at"
        case endpoints
        case deviceSecret = "device_secret"
        case oprfPublicKey = "oprf_public_key"
        case sealedSigningKey = "sealed_signing_key"
    }
}
