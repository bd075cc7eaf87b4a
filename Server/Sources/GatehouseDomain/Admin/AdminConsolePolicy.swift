import GatehouseFoundation

/// The admin console's settings (`admin_console`).
public struct AdminConsolePolicy: Sendable, Codable, Equatable {
    /// Whether `/admin` serves the console (true); off, its pages answer 404.
    public var enabled = true

    /// The defaults.
    public init(enabled: Bool = true) {
        self.enabled = enabled
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        try container.update(&enabled, .enabled)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled
    }
}
