/// Self-service registration (`registration` in the configuration file).
public struct RegistrationPolicy: Sendable, Codable, Equatable {
    /// Whether people may create their own accounts; off by default.
    public var enabled = false
    /// Whether the email address must be confirmed with a code before the account exists.
    public var verifyEmail = true
    /// Whether to ask for a mobile number (optional for the person; confirmed by an SMS code when given).
    public var collectPhone = false

    /// A policy; registration is off unless `enabled`.
    public init(enabled: Bool = false, verifyEmail: Bool = true, collectPhone: Bool = false) {
        self.enabled = enabled
        self.verifyEmail = verifyEmail
        self.collectPhone = collectPhone
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = RegistrationPolicy()
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? defaults.enabled
        verifyEmail = try container.decodeIfPresent(Bool.self, forKey: .verifyEmail) ?? defaults.verifyEmail
        collectPhone = try container.decodeIfPresent(Bool.self, forKey: .collectPhone) ?? defaults.collectPhone
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled
        case verifyEmail = "verify_email"
        case collectPhone = "collect_phone"
    }
}
