/// The audit trail (`audit` in the configuration file): how long events are kept.
public struct AuditPolicy: Sendable, Codable, Equatable {
    /// Days an event is kept; older ones are swept in the background.
    public var retentionDays = 90

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&retentionDays, .retentionDays)
    }

    func validate() throws {
        guard (1...3650).contains(retentionDays) else { throw ConfigurationError(key: "audit.retention_days", "must be 1 to 3650 days.") }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case retentionDays = "retention_days"
    }
}
