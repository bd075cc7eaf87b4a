import Foundation
import GatehouseFoundation

/// The audit trail (`audit` in the configuration file): how long events are kept.
public struct AuditPolicy: Sendable, Codable, Equatable {
    /// Days an event is kept; older ones are swept in the background.
    public var retentionDays = 90
    /// Where events are also sent, for a SIEM: in order, at least once (a receiver drops repeats by `id`), signed.
    public var webhook: AuditWebhook?

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&retentionDays, .retentionDays)
        try section.update(&webhook, .webhook)
    }

    package func validate() throws {
        guard (1...3650).contains(retentionDays) else { throw ConfigurationError(key: "audit.retention_days", "must be 1 to 3650 days.") }
        try webhook?.validate()
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case retentionDays = "retention_days"
        case webhook
    }
}

/// The audit trail's webhook (`audit.webhook`): batches of events as JSON lines, POSTed with an HMAC-SHA256 signature of
/// the timestamp and body under `secret` (`X-Gatehouse-Signature: t=…,sha256=…`, and the Standard Webhooks headers),
/// retried with doubling delays.
public struct AuditWebhook: Sendable, Codable, Equatable {
    public var url: String
    /// The HMAC key the receiver checks signatures with; at least 32 characters.
    public var secret: String
    /// Seconds one POST may take.
    public var timeout = 10
    /// Events per POST.
    public var batchSize = 100

    public init(url: String, secret: String) {
        self.url = url
        self.secret = secret
    }

    public init(from decoder: any Decoder) throws {
        let section = try decoder.section(CodingKeys.self)
        self.init(url: try section.decode(String.self, forKey: .url), secret: try section.decode(String.self, forKey: .secret))
        try section.update(&timeout, .timeout)
        try section.update(&batchSize, .batchSize)
    }

    package func validate() throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host,
            scheme == "https" || (scheme == "http" && LoopbackHost.contains(host))
        else { throw ConfigurationError(key: "audit.webhook.url", "must be an https URL (http only on loopback), not \(url).") }
        guard secret.count >= 32 else { throw ConfigurationError(key: "audit.webhook.secret", "must be at least 32 characters.") }
        guard (1...60).contains(timeout) else { throw ConfigurationError(key: "audit.webhook.timeout", "must be 1 to 60 seconds.") }
        guard (1...1000).contains(batchSize) else { throw ConfigurationError(key: "audit.webhook.batch_size", "must be 1 to 1000.") }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case url, secret, timeout
        case batchSize = "batch_size"
    }
}
