import Foundation

/// Resolves a ``ServerConfiguration`` from its defaults, a JSON file, `GATEHOUSE_*` environment variables and
/// command-line options, in that order of increasing precedence.
public struct ConfigurationLoader: Sendable {
    public var environment: [String: String]

    /// A loader that reads `environment` (the process's by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The configuration, validated.
    /// - Parameters:
    ///   - configFile: a JSON file path; `GATEHOUSE_CONFIG` is used when `nil`.
    ///   - overrides: the settings given on the command line, as typed there.
    /// - Throws: ``ConfigurationError`` naming the setting at fault.
    public func load(configFile: String?, overrides: [ServerSetting: String] = [:]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let path = configFile ?? environment["GATEHOUSE_CONFIG"] {
            configuration = try ConfigurationFile.read(path: path)
        }
        for setting in ServerSetting.allCases {
            if let text = environment[setting.environmentName] {
                try setting.apply(text, to: &configuration, from: setting.environmentName)
            }
        }
        for setting in ServerSetting.allCases {
            if let text = overrides[setting] {
                try setting.apply(text, to: &configuration, from: "--" + setting.rawValue.replacingOccurrences(of: "_", with: "-"))
            }
        }
        try configuration.validate()
        return configuration
    }
}
