import Foundation

/// How often a cached key set is fetched again for a token that names a key it lacks: once, then not again within
/// ``interval``. Anyone can make a token with an unknown key id; without a limit each one would cost a fetch of the
/// key set, turning the holder into a reflector against the set's host. A real rotation needs one fetch.
public struct KeySetRefetchLimit: Sendable {
    /// Seconds after a fetch for a missing key before another may be made.
    public static let interval: TimeInterval = 30

    private var lastRefetch: Date?

    /// A limit that allows the first refetch at once.
    public init() {}

    /// Whether a fetch for a missing key may be made at `now`; when it may, it counts from then.
    public mutating func admit(at now: Date = Date()) -> Bool {
        if let lastRefetch, now.timeIntervalSince(lastRefetch) < Self.interval { return false }
        lastRefetch = now
        return true
    }
}
