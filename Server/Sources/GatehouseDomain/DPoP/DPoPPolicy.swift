/// DPoP (RFC 9449) settings (`dpop` in the configuration file). Proofs are always accepted; a client registered with
/// `require_dpop` must send them.
public struct DPoPPolicy: Sendable, Codable, Equatable {
    /// Whether every proof must carry a nonce from the server's `DPoP-Nonce` header (RFC 9449 §8), which limits a
    /// proof made ahead of time to a few minutes. Off by default: clients then need no extra round trip.
    public var requireNonce = false

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&requireNonce, .requireNonce)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case requireNonce = "require_nonce"
    }
}
