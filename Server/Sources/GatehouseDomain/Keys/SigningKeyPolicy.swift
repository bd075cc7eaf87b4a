import GatehouseFoundation

/// When signing keys rotate by themselves (`keys` in the configuration file): off unless `rotate_every` is given.
public struct SigningKeyPolicy: Sendable, Codable, Equatable {
    /// Seconds a key signs before its successor takes over; `nil` rotates only on `gatehouse keys rotate`.
    public var rotateEvery: Int64?
    /// Seconds the successor is in the JWKS before it signs, so that relying parties which cache the key set hold it
    /// before they meet a token it signed: a day by default.
    public var publishAhead: Int64 = 86_400

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&rotateEvery, .rotateEvery)
        try section.update(&publishAhead, .publishAhead)
    }

    /// Seconds between the nodes' reads of the keys: well inside `publish_ahead`, so that every node has loaded a
    /// successor long before it signs, and at most 30.
    public var reloadInterval: Int64 { rotateEvery == nil ? 30 : min(30, max(1, publishAhead / 4)) }

    /// Seconds a client may cache the JWKS (`Cache-Control: max-age`): a minute, or less when a successor is published
    /// for a shorter time than a minute and a node's reread take, so a client that honours it fetches the successor
    /// before it signs.
    public var keySetMaxAge: Int64 { rotateEvery == nil ? 60 : max(1, min(60, publishAhead - 2 * reloadInterval)) }

    package func validate() throws {
        guard (4...30 * 86_400).contains(publishAhead) else {
            throw ConfigurationError(key: "keys.publish_ahead", "must be between 4 seconds and 30 days.")
        }
        if let rotateEvery, rotateEvery <= publishAhead || rotateEvery > 3 * 366 * 86_400 {
            throw ConfigurationError(key: "keys.rotate_every", "must be longer than keys.publish_ahead (\(publishAhead) seconds) and at most three years.")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case rotateEvery = "rotate_every"
        case publishAhead = "publish_ahead"
    }
}
