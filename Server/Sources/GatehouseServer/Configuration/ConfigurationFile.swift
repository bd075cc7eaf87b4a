import Foundation
import GatehouseFoundation

/// The JSON configuration file: it decodes straight into ``ServerConfiguration``, whose defaults fill what it leaves out.
enum ConfigurationFile {
    /// The configuration `path` holds over the defaults.
    /// - Throws: ``ConfigurationError`` naming the key at fault: an unknown key, a value of the wrong type, or a
    ///   file that cannot be read or is not JSON.
    static func read(path: String) throws -> ServerConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("Cannot read the configuration file \(path).")
        }
        do {
            return try JSONDecoder().decode(ServerConfiguration.self, from: data)
        } catch let error as DecodingError {
            let message = "The configuration file \(path) is not valid: \(Self.explain(error))."
            guard let key = Self.keyPath(of: error) else { throw ConfigurationError(message) }
            throw ConfigurationError(message, key: key)
        }
    }

    /// The dotted path of the setting a decoding error is about, if it is about one.
    private static func keyPath(of error: DecodingError) -> String? {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? nil : path
        case .keyNotFound(let key, let context):
            return (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
        @unknown default:
            return nil
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
