import GatehouseFoundation

/// The admin console's settings (`admin_console`).
public struct AdminConsolePolicy: Sendable, Codable, Equatable {
    /// Where the console is served.
    public enum Listener: String, Sendable, Codable, CaseIterable {
        /// Beside the hosted pages, on the server's own listener.
        case `public`
        /// On the metrics listener (`metrics.host`, `metrics.port`) with the sign-in it needs, and not on the public
        /// one: for operators who keep the console on an internal interface.
        case metrics
    }

    /// Whether `/admin` serves the console (true); off, its pages answer 404.
    public var enabled = true
    /// Which listener serves it.
    public var listener = Listener.public

    /// The defaults.
    public init(enabled: Bool = true, listener: Listener = .public) {
        self.enabled = enabled
        self.listener = listener
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        try container.update(&enabled, .enabled)
        try container.update(&listener, .listener)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, listener
    }
}
