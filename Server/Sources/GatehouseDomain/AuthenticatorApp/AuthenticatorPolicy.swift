import GatehouseFoundation
import GatehouseProtocol

/// Website sign-in by QR code, approved in an authenticator app with a PIN (`authenticator` in the configuration file).
///
/// Which clients offer it is each client's sign-on policy (``SignOnPolicy/appLogin``); this says how it works everywhere.
public struct AuthenticatorPolicy: Sendable, Codable, Equatable {
    /// How a new device identity's email is confirmed.
    public enum Verification: String, Sendable, Codable {
        /// A code from the email, typed into the app.
        case code
        /// A link in the email, opened in a browser; the email carries the code too, for when the link cannot be opened.
        case link
    }

    /// The name apps show; defaults to the issuer's host.
    public var serviceName: String?
    /// A logo apps may show beside the name.
    public var logoURL: String?
    /// Digits in a PIN, 4 to 6.
    public var pinLength = 4
    /// Wrong PINs in a row that block a device identity.
    public var maxPINAttempts = 3
    /// How long a QR code's access code can be used, in seconds.
    public var accessCodeLifetime: Int64 = 120
    /// How long a registration may wait for its email confirmation and PIN, in seconds.
    public var registrationLifetime: Int64 = 1800
    public var verification = Verification.code
    /// Device registrations one email address may start per hour, whether or not it has an account.
    public var registrationsPerHour = 3
    /// App names (the `Gatehouse-App` header's name) allowed to use this service; empty allows any app.
    public var allowedApps: [String] = []
    /// The oldest app version accepted.
    public var minimumAppVersion = "1.0.0"

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = AuthenticatorPolicy()
        serviceName = try container.decodeIfPresent(String.self, forKey: .serviceName)
        logoURL = try container.decodeIfPresent(String.self, forKey: .logoURL)
        pinLength = try container.decodeIfPresent(Int.self, forKey: .pinLength) ?? defaults.pinLength
        maxPINAttempts = try container.decodeIfPresent(Int.self, forKey: .maxPINAttempts) ?? defaults.maxPINAttempts
        accessCodeLifetime = try container.decodeIfPresent(Int64.self, forKey: .accessCodeLifetime) ?? defaults.accessCodeLifetime
        registrationLifetime = try container.decodeIfPresent(Int64.self, forKey: .registrationLifetime) ?? defaults.registrationLifetime
        verification = try container.decodeIfPresent(Verification.self, forKey: .verification) ?? defaults.verification
        registrationsPerHour = try container.decodeIfPresent(Int.self, forKey: .registrationsPerHour) ?? defaults.registrationsPerHour
        allowedApps = try container.decodeIfPresent([String].self, forKey: .allowedApps) ?? defaults.allowedApps
        minimumAppVersion = try container.decodeIfPresent(String.self, forKey: .minimumAppVersion) ?? defaults.minimumAppVersion
    }

    package func validate() throws {
        guard PINProtocol.pinLengths.contains(pinLength) else { throw ConfigurationError(key: "authenticator.pin_length", "must be 4, 5 or 6.") }
        guard (1...10).contains(maxPINAttempts) else { throw ConfigurationError(key: "authenticator.max_pin_attempts", "must be between 1 and 10.") }
        guard (30...900).contains(accessCodeLifetime) else {
            throw ConfigurationError(key: "authenticator.access_code_lifetime", "must be 30 to 900 seconds.")
        }
        guard (60...86_400).contains(registrationLifetime) else {
            throw ConfigurationError(key: "authenticator.registration_lifetime", "must be 60 to 86400 seconds.")
        }
        guard (1...100).contains(registrationsPerHour) else {
            throw ConfigurationError(key: "authenticator.registrations_per_hour", "must be between 1 and 100.")
        }
        guard AppVersion(minimumAppVersion) != nil else {
            throw ConfigurationError(key: "authenticator.minimum_app_version", "must be a dotted version such as 1.2.0, not \(minimumAppVersion).")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case verification
        case serviceName = "service_name"
        case logoURL = "logo_uri"
        case pinLength = "pin_length"
        case maxPINAttempts = "max_pin_attempts"
        case accessCodeLifetime = "access_code_lifetime"
        case registrationLifetime = "registration_lifetime"
        case allowedApps = "allowed_apps"
        case minimumAppVersion = "minimum_app_version"
        case registrationsPerHour = "registrations_per_hour"
    }
}
