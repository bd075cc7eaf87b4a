import GatehouseFoundation

/// How logout tokens reach clients' back-channel logout URIs (`backchannel_logout`): each delivery within `timeout`
/// seconds; a client that does not answer 2xx is tried again after `retry_delay` seconds, doubled each time, up to
/// `max_attempts` in all, then given up with an audit record.
public struct LogoutDeliveryPolicy: Sendable, Codable, Equatable {
    /// Attempts per notification, the first included.
    public var maxAttempts = 5
    /// Seconds before the first retry; each later one waits twice as long as the one before (at most an hour).
    public var retryDelay: Int64 = 10
    /// Seconds a delivery may take, connecting included.
    public var timeout: Int64 = 5

    /// The defaults.
    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = LogoutDeliveryPolicy()
        maxAttempts = try container.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? defaults.maxAttempts
        retryDelay = try container.decodeIfPresent(Int64.self, forKey: .retryDelay) ?? defaults.retryDelay
        timeout = try container.decodeIfPresent(Int64.self, forKey: .timeout) ?? defaults.timeout
        guard (1...20).contains(maxAttempts) else { throw ConfigurationError("backchannel_logout.max_attempts must be 1 to 20, not \(maxAttempts).") }
        guard (1...3600).contains(retryDelay) else {
            throw ConfigurationError("backchannel_logout.retry_delay must be 1 to 3600 seconds, not \(retryDelay).")
        }
        guard (1...30).contains(timeout) else { throw ConfigurationError("backchannel_logout.timeout must be 1 to 30 seconds, not \(timeout).") }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case timeout
        case maxAttempts = "max_attempts"
        case retryDelay = "retry_delay"
    }
}
