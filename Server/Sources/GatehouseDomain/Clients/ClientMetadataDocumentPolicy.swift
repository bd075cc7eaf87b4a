import GatehouseFoundation

/// Clients that identify themselves by the URL of their metadata document (`client_metadata_documents`; the IETF OAuth
/// working group's Client ID Metadata Documents, used by MCP clients): off unless the operator turns it on.
public struct ClientMetadataDocumentPolicy: Sendable, Codable, Equatable {
    /// Whether a `client_id` that is an https URL is fetched and used as a third-party public client.
    public var enabled = false
    /// The hosts documents may come from; empty for any public host.
    public var allowedHosts: [String] = []
    /// For development only: documents on loopback, private and link-local addresses, and over plain http there.
    public var allowPrivateAddresses = false
    /// The largest document read, in bytes.
    public var maxBytes = 5120
    /// Seconds a fetch may take, connecting included.
    public var timeout: Int64 = 5
    /// The longest a document is cached, whatever its `Cache-Control` says, in seconds.
    public var maxCacheAge: Int64 = 86_400

    /// The defaults: off.
    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = ClientMetadataDocumentPolicy()
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? defaults.enabled
        allowedHosts = try container.decodeIfPresent([String].self, forKey: .allowedHosts) ?? defaults.allowedHosts
        allowPrivateAddresses = try container.decodeIfPresent(Bool.self, forKey: .allowPrivateAddresses) ?? defaults.allowPrivateAddresses
        maxBytes = try container.decodeIfPresent(Int.self, forKey: .maxBytes) ?? defaults.maxBytes
        timeout = try container.decodeIfPresent(Int64.self, forKey: .timeout) ?? defaults.timeout
        maxCacheAge = try container.decodeIfPresent(Int64.self, forKey: .maxCacheAge) ?? defaults.maxCacheAge
        guard (256...1_048_576).contains(maxBytes) else {
            throw ConfigurationError("client_metadata_documents.max_bytes must be 256 to 1048576, not \(maxBytes).")
        }
        guard (1...30).contains(timeout) else { throw ConfigurationError("client_metadata_documents.timeout must be 1 to 30 seconds, not \(timeout).") }
        guard (0...604_800).contains(maxCacheAge) else {
            throw ConfigurationError("client_metadata_documents.max_cache_age must be 0 to 604800 seconds, not \(maxCacheAge).")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, timeout
        case allowedHosts = "allowed_hosts"
        case allowPrivateAddresses = "allow_private_addresses"
        case maxBytes = "max_bytes"
        case maxCacheAge = "max_cache_age"
    }
}
