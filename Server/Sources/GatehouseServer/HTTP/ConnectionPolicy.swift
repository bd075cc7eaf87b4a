import GatehouseFoundation

/// How long a connection may take over each part of its life, and how many may be open
/// (`connections` in the configuration file). Without these a few thousand idle or slow
/// connections (slowloris) would use up the server's file descriptors and lock everyone else out.
public struct ConnectionPolicy: Sendable, Codable, Equatable {
    /// The most connections open at once; `nil` takes what the open-file limit allows (see ``OpenFileLimit``).
    public var maxConnections: Int?
    /// Seconds a new connection may take to send a complete request head.
    public var headerTimeout: Int64 = 10
    /// Seconds a request may take to send its body once the head is in.
    public var bodyTimeout: Int64 = 30
    /// Seconds a kept-alive connection may sit between requests.
    public var idleTimeout: Int64 = 60
    /// Seconds a connection waiting for a request may sit while three quarters of the connection limit are in use:
    /// under pressure waiting connections make room quickly, and a real client sends its request at once.
    public var pressureTimeout: Int64 = 1

    /// Ten seconds for a head, thirty for a body, a minute idle, one second under pressure.
    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = ConnectionPolicy()
        maxConnections = try container.decodeIfPresent(Int.self, forKey: .maxConnections)
        headerTimeout = try container.decodeIfPresent(Int64.self, forKey: .headerTimeout) ?? defaults.headerTimeout
        bodyTimeout = try container.decodeIfPresent(Int64.self, forKey: .bodyTimeout) ?? defaults.bodyTimeout
        idleTimeout = try container.decodeIfPresent(Int64.self, forKey: .idleTimeout) ?? defaults.idleTimeout
        pressureTimeout = try container.decodeIfPresent(Int64.self, forKey: .pressureTimeout) ?? defaults.pressureTimeout
    }

    func validate() throws {
        if let maxConnections, maxConnections < 8 { throw ConfigurationError(key: "connections.max_connections", "must be at least 8.") }
        for (name, value) in [
            ("header_timeout", headerTimeout), ("body_timeout", bodyTimeout), ("idle_timeout", idleTimeout),
            ("pressure_timeout", pressureTimeout),
        ] where !(1...3600).contains(value) {
            throw ConfigurationError(key: "connections.\(name)", "must be between 1 and 3600 seconds.")
        }
    }

    /// The connection limit on a process allowed `openFiles` descriptors: what is configured, or all but a reserve
    /// for the database, logs and outgoing connections (the courier, PostgreSQL).
    /// - Throws: ``ConfigurationError`` when the configured limit does not fit under the open-file limit.
    public func connectionLimit(openFiles: Int) throws -> Int {
        let available = max(8, openFiles - OpenFileLimit.reserve)
        guard let maxConnections else { return available }
        guard maxConnections <= available else {
            throw ConfigurationError(
                """
                connections.max_connections is \(maxConnections), but the open-file limit (\(openFiles)) leaves room for \(available). \
                Raise the limit (ulimit -n, LimitNOFILE= in systemd) or lower max_connections.
                """)
        }
        return maxConnections
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxConnections = "max_connections"
        case headerTimeout = "header_timeout"
        case bodyTimeout = "body_timeout"
        case idleTimeout = "idle_timeout"
        case pressureTimeout = "pressure_timeout"
    }
}
