/// What a Gatehouse server tells an authenticator app about itself, at its service URL (`GET {issuer}/authenticator`).
///
/// The app checks it before anything else: that it may talk to this service at all (406 otherwise) and that
/// its version is still supported (412 otherwise), then shows ``serviceName`` to the person.
public struct AuthenticatorServiceDescription: Codable, Sendable, Equatable {
    /// The protocol the endpoints speak; ``PINProtocol/version`` for this SDK.
    public var protocolVersion: String
    /// The name to show ("Sign in to Example").
    public var serviceName: String
    /// A logo the app may show beside the service name.
    public var logoURL: String?
    /// The server's issuer; tokens from a direct sign-in name it.
    public var issuer: String
    /// How many digits a PIN has (4 to 6).
    public var pinLength: Int
    /// How a new device identity's email is confirmed: `code` (typed into the app) and/or `link` (opened from the email).
    public var verificationMethods: [String]
    /// The oldest app version this service accepts.
    public var minimumAppVersion: String
    /// Where the protocol's requests go.
    public var endpoints: AuthenticatorEndpoints

    /// A service description.
    public init(
        protocolVersion: String = PINProtocol.version, serviceName: String, logoURL: String?, issuer: String, pinLength: Int,
        verificationMethods: [String], minimumAppVersion: String, endpoints: AuthenticatorEndpoints
    ) {
        self.protocolVersion = protocolVersion
        self.serviceName = serviceName
        self.logoURL = logoURL
        self.issuer = issuer
        self.pinLength = pinLength
        self.verificationMethods = verificationMethods
        self.minimumAppVersion = minimumAppVersion
        self.endpoints = endpoints
    }

    enum CodingKeys: String, CodingKey {
        case issuer, endpoints
        case protocolVersion = "protocol"
        case serviceName = "service_name"
        case logoURL = "logo_uri"
        case pinLength = "pin_length"
        case verificationMethods = "verification_methods"
        case minimumAppVersion = "minimum_app_version"
    }
}

/// Where an authenticator app sends each request.
public struct AuthenticatorEndpoints: Codable, Sendable, Equatable {
    /// `POST` starts registering a device identity; `…/resend`, `…/verification`, `…/pin-evaluation` and `…/activation` continue it.
    public var registration: String
    /// `GET` reads and `DELETE` removes the identity the request's device secret belongs to.
    public var identity: String
    /// `POST` claims a QR sign-in session with its access code; `…/{id}/pin-evaluation`, `…/{id}/approval` and `…/{id}/abort` answer it.
    public var sessions: String

    /// The endpoints.
    public init(registration: String, identity: String, sessions: String) {
        self.registration = registration
        self.identity = identity
        self.sessions = sessions
    }
}
