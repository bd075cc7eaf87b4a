import Foundation
import GatehouseFoundation

/// Distributed tracing (`tracing` in the configuration file): spans for requests, database work and password hashes,
/// exported by OTLP/HTTP to a collector. Off until an endpoint is given; a `traceparent` header from the caller
/// (W3C Trace Context) continues the caller's trace.
public struct TracingPolicy: Sendable, Codable, Equatable {
    /// The collector's OTLP/HTTP base URL (`http://127.0.0.1:4318`; spans go to `/v1/traces` under it). `nil` (the
    /// default) traces nothing.
    public var otlpEndpoint: String?
    /// The `service.name` spans carry.
    public var serviceName = "gatehouse"
    /// The share of new traces recorded, 0 to 1; a request in a caller's trace follows the caller's decision.
    public var sampleRatio = 1.0

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&otlpEndpoint, .otlpEndpoint)
        try section.update(&serviceName, .serviceName)
        try section.update(&sampleRatio, .sampleRatio)
    }

    /// Where spans are posted: the endpoint's `/v1/traces`.
    var tracesURL: String? {
        otlpEndpoint.map { $0.hasSuffix("/") ? $0 + "v1/traces" : $0 + "/v1/traces" }
    }

    func validate() throws {
        if let otlpEndpoint {
            guard let url = URL(string: otlpEndpoint), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil,
                url.query == nil
            else { throw ConfigurationError(key: "tracing.otlp_endpoint", "must be the collector's http or https URL, not \(otlpEndpoint).") }
        }
        guard !serviceName.isEmpty, serviceName.count <= 100 else { throw ConfigurationError(key: "tracing.service_name", "must be 1 to 100 characters.") }
        guard (0...1).contains(sampleRatio) else { throw ConfigurationError(key: "tracing.sample_ratio", "must be between 0 and 1.") }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case otlpEndpoint = "otlp_endpoint"
        case serviceName = "service_name"
        case sampleRatio = "sample_ratio"
    }
}
