import Foundation
import GatehouseDomain
import GatehouseFoundation
import Logging

/// A setting the environment (`GATEHOUSE_` and its name) and the command line can give, over the configuration
/// file: each is named once here, and read from text the same way wherever it comes from.
public enum ServerSetting: String, CaseIterable, Sendable {
    case host, port, database, issuer, secret, demo
    case secretFile = "secret_file"
    case logLevel = "log_level"
    case maxConcurrentHashes = "max_concurrent_hashes"
    /// The proxies' addresses, comma-separated (`trusted_proxies.addresses` in the file).
    case trustedProxies = "trusted_proxies"

    /// Its path in the configuration file.
    public var fileKey: String { self == .trustedProxies ? "trusted_proxies.addresses" : rawValue }

    /// The environment variable that gives it, such as `GATEHOUSE_LOG_LEVEL`.
    public var environmentName: String { "GATEHOUSE_" + rawValue.uppercased() }

    /// Sets this setting of `configuration` to `text`, as written in the environment or on the command line
    /// (`from` names where, for the error).
    /// - Throws: ``ConfigurationError`` naming the setting when `text` is not a value it takes.
    func apply(_ text: String, to configuration: inout ServerConfiguration, from source: String) throws {
        func refuse(_ why: String) -> ConfigurationError {
            ConfigurationError("\(source) \(why)", key: fileKey)
        }
        switch self {
        case .host: configuration.host = text
        case .issuer: configuration.issuer = text
        case .secret: configuration.secret = text
        case .secretFile: configuration.secretFile = text
        case .port:
            guard let port = Int(text) else { throw refuse("must be a whole number, not \"\(text)\".") }
            configuration.port = port
        case .maxConcurrentHashes:
            guard let count = Int(text) else { throw refuse("must be a whole number, not \"\(text)\".") }
            configuration.maxConcurrentHashes = count
        case .demo:
            guard let on = ["1": true, "true": true, "yes": true, "0": false, "false": false, "no": false][text.lowercased()] else {
                throw refuse("must be true or false, not \"\(text)\".")
            }
            configuration.demo = on
        case .logLevel:
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw refuse("must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\".")
            }
            configuration.logLevel = level
        case .database:
            do {
                configuration.database = try DatabaseLocation(parsing: text)
            } catch {
                // The error repeats the location without its password.
                throw ConfigurationError("\(source): \(error)", key: fileKey)
            }
        case .trustedProxies:
            configuration.trustedProxies.addresses = try text.split(separator: ",").map { part in
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                guard let network = IPNetwork(trimmed) else {
                    throw refuse("lists \"\(trimmed)\", which is not an IP address or network such as 10.0.0.0/8.")
                }
                return network
            }
        }
    }
}
