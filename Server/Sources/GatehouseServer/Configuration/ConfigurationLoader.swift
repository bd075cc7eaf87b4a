import Foundation

/// Resolves a ``ServerConfiguration`` from a JSON file, `GATEHOUSE_*` environment variables and
/// command-line overrides, in that order of increasing precedence.
public struct ConfigurationLoader: Sendable {
    /// The values given on the command line; `nil` means "not given".
    public struct Overrides: Sendable {
        public var host: String?
        public var port: Int?
        public var database: String?
        public var issuer: String?
        public var demo: Bool?
        public var logLevel: String?

        public init(host: String? = nil, port: Int? = nil, database: String? = nil, issuer: String? = nil, demo: Bool? = nil, logLevel: String? = nil) {
            self.host = host
            self.port = port
            self.database = database
            self.issuer = issuer
            self.demo = demo
            self.logLevel = logLevel
        }
    }

    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// - Parameters:
    ///   - configFile: a JSON file path; `GATEHOUSE_CONFIG` is used when `nil`.
    public func load(configFile: String?, overrides: Overrides) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let path = configFile ?? environment["GATEHOUSE_CONFIG"] {
            try ConfigurationFile.read(path: path).apply(to: &configuration)
        }
        try applyEnvironment(to: &configuration)
        if let host = overrides.host { configuration.host = host }
        if let port = overrides.port { configuration.port = port }
        if let database = overrides.database { configuration.database = database }
        if let issuer = overrides.issuer { configuration.issuer = issuer }
        if let demo = overrides.demo, demo { configuration.demo = true }
        if let logLevel = overrides.logLevel { configuration.logLevel = logLevel }
        try configuration.validate()
        return configuration
    }

    private func applyEnvironment(to configuration: inout ServerConfiguration) throws {
        if let value = environment["GATEHOUSE_HOST"] { configuration.host = value }
        if let value = environment["GATEHOUSE_PORT"] { configuration.port = try integer(value, "GATEHOUSE_PORT") }
        if let value = environment["GATEHOUSE_DATABASE"] { configuration.database = value }
        if let value = environment["GATEHOUSE_ISSUER"] { configuration.issuer = value }
        if let value = environment["GATEHOUSE_SECRET"] { configuration.secret = value }
        if let value = environment["GATEHOUSE_SECRET_FILE"] { configuration.secretFile = value }
        if let value = environment["GATEHOUSE_LOG_LEVEL"] { configuration.logLevel = value }
        if let value = environment["GATEHOUSE_DEMO"] { configuration.demo = ["1", "true", "yes"].contains(value.lowercased()) }
        if let value = environment["GATEHOUSE_TRUSTED_PROXIES"] {
            configuration.trustedProxies.addresses = try value.split(separator: ",").map { text in
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard let network = IPNetwork(trimmed) else {
                    throw ConfigurationError("GATEHOUSE_TRUSTED_PROXIES lists \"\(trimmed)\", which is not an IP address or network such as 10.0.0.0/8.")
                }
                return network
            }
        }
        if let value = environment["GATEHOUSE_MAX_CONCURRENT_HASHES"] {
            configuration.maxConcurrentHashes = try integer(value, "GATEHOUSE_MAX_CONCURRENT_HASHES")
        }
    }

    private func integer(_ value: String, _ name: String) throws -> Int {
        guard let number = Int(value) else { throw ConfigurationError(key: "\(name)", "must be a whole number, not \"\(value)\".") }
        return number
    }
}
