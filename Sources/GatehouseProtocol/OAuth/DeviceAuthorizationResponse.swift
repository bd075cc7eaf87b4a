/// The answer of the device authorization endpoint (RFC 8628 §3.2): the codes a device shows and polls with.
public struct DeviceAuthorizationResponse: Codable, Sendable, Equatable {
    /// The secret the device polls the token endpoint with; never shown to the user.
    public var deviceCode: String
    /// The short code the user types on another device (`WDJB-MJHT`).
    public var userCode: String
    /// The page where the user types the code.
    public var verificationURI: String
    /// The page with the code already filled in, for a QR code or a link.
    public var verificationURIComplete: String?
    /// Seconds until both codes expire.
    public var expiresIn: Int
    /// Seconds to wait between polls (5 when absent).
    public var interval: Int?

    /// A device authorization response.
    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String?, expiresIn: Int, interval: Int?
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    enum CodingKeys: String, CodingKey {
        case deviceCode = "device_code"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case verificationURIComplete = "verification_uri_complete"
        case expiresIn = "expires_in"
        case interval
    }
}
