import GatehouseFoundation

/// The background sweep of expired rows (`housekeeping` in the configuration file; see ``ExpiredRowSweep``).
public struct HousekeepingPolicy: Sendable, Codable, Equatable {
    /// Seconds between sweeps. A sweep that found more than it could delete in one pass goes on at once.
    public var interval: Int64 = 600
    /// Seconds a used authorization code is remembered past its expiry, so that presenting it again still revokes
    /// what it issued (RFC 6749 §4.1.2). A day by default; the sweep takes it afterwards.
    public var replayWindow: Int64 = 86_400

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&interval, .interval)
        try section.update(&replayWindow, .replayWindow)
    }

    package func validate() throws {
        guard (1...86_400).contains(interval) else {
            throw ConfigurationError(key: "housekeeping.interval", "must be between 1 and 86400 seconds.")
        }
        guard (0...Self.maximumReplayWindow).contains(replayWindow) else {
            throw ConfigurationError(key: "housekeeping.replay_window", "must be between 0 and \(Self.maximumReplayWindow) seconds (a week).")
        }
    }

    package static let maximumReplayWindow: Int64 = 7 * 86_400

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case interval
        case replayWindow = "replay_window"
    }
}
