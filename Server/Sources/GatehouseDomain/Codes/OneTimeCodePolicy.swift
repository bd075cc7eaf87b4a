import GatehouseFoundation

/// Codes sent by email or SMS (`one_time_codes` in the configuration file).
public struct OneTimeCodePolicy: Sendable, Codable, Equatable {
    /// Digits per code, 6 to 10.
    public var digits = 6
    /// Seconds a code stays valid, at most 10 minutes.
    public var lifetime: Int64 = 600
    /// Wrong guesses a code tolerates; the step then fails and must start over.
    public var maxAttempts = 5
    /// Seconds before the first resend; each further resend waits twice as long.
    public var resendDelay: Int64 = 30

    /// Six digits, ten minutes, five guesses, resends after 30 s (doubling).
    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = OneTimeCodePolicy()
        digits = try container.decodeIfPresent(Int.self, forKey: .digits) ?? defaults.digits
        lifetime = try container.decodeIfPresent(Int64.self, forKey: .lifetime) ?? defaults.lifetime
        maxAttempts = try container.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? defaults.maxAttempts
        resendDelay = try container.decodeIfPresent(Int64.self, forKey: .resendDelay) ?? defaults.resendDelay
    }

    package func validate() throws {
        guard (6...10).contains(digits) else { throw ConfigurationError(key: "one_time_codes.digits", "must be between 6 and 10.") }
        guard (1...600).contains(lifetime) else { throw ConfigurationError(key: "one_time_codes.lifetime", "must be between 1 and 600 seconds.") }
        guard (1...20).contains(maxAttempts) else { throw ConfigurationError(key: "one_time_codes.max_attempts", "must be between 1 and 20.") }
        guard (0...3600).contains(resendDelay) else { throw ConfigurationError(key: "one_time_codes.resend_delay", "must be between 0 and 3600 seconds.") }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case digits, lifetime
        case maxAttempts = "max_attempts"
        case resendDelay = "resend_delay"
    }
}
