import GatehouseFoundation

/// Prometheus metrics (`metrics` in the configuration file): served at `/metrics` on a listener of their own, never
/// on the public one, and off until a port is given.
public struct MetricsPolicy: Sendable, Codable, Equatable {
    /// The address the metrics listener binds; loopback unless the scraper is elsewhere.
    public var host = "127.0.0.1"
    /// The metrics listener's port; `nil` (the default) serves no metrics.
    public var port: Int?

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&host, .host)
        try section.update(&port, .port)
    }

    func validate(serverPort: Int) throws {
        guard let port else { return }
        guard (1...65535).contains(port) else { throw ConfigurationError(key: "metrics.port", "must be between 1 and 65535.") }
        guard port != serverPort else {
            throw ConfigurationError(key: "metrics.port", "must differ from the server's port: metrics never share the public listener.")
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port
    }
}
