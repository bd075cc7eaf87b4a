import GatehouseFoundation

/// How many wrong guesses of a secret one subject (an account, an address, a client address) may make, and how long
/// it waits after that. Counted in the database, so the limit holds across flows and server nodes.
///
/// After ``maxFailures`` wrong guesses the subject is blocked for ``cooldown`` seconds; each further block in a row
/// lasts twice as long as the one before, up to ``maxCooldown``. Counts are forgotten after ``window`` seconds
/// without a wrong guess (counted from the end of the last block).
public struct AttemptLimit: Sendable, Codable, Equatable {
    /// Wrong guesses before a block.
    public var maxFailures: Int
    /// Seconds without a wrong guess after which the count starts again.
    public var window: Int64
    /// The first block, in seconds; each block in a row doubles it.
    public var cooldown: Int64
    /// The longest block, in seconds.
    public var maxCooldown: Int64

    /// A limit of `maxFailures` wrong guesses, then blocks from `cooldown` doubling up to `maxCooldown` seconds,
    /// forgotten after `window` quiet seconds.
    public init(maxFailures: Int, window: Int64, cooldown: Int64, maxCooldown: Int64) {
        self.maxFailures = maxFailures
        self.window = window
        self.cooldown = cooldown
        self.maxCooldown = maxCooldown
    }

    /// Passwords per account name: 5 wrong, then 5 minutes, 10, 20 … up to an hour, forgotten after 15 quiet minutes.
    public static let passwords = AttemptLimit(maxFailures: 5, window: 900, cooldown: 300, maxCooldown: 3600)
    /// Codes per account and journey: 10 wrong, then 15 minutes, 30, 60 … up to a day, forgotten after a quiet day.
    /// A 6-digit code then takes about 70 guesses a day at most (well inside NIST SP 800-63B §5.2.2's 100 in a row).
    public static let codes = AttemptLimit(maxFailures: 10, window: 86_400, cooldown: 900, maxCooldown: 86_400)
    /// Everything from one client address: 100 wrong, then a minute, 2, 4 … up to an hour, forgotten after a quiet hour.
    public static let sources = AttemptLimit(maxFailures: 100, window: 3600, cooldown: 60, maxCooldown: 3600)

    /// The length of the block that follows `blocks` earlier blocks in a row.
    package func cooldown(afterBlocks blocks: Int) -> Int64 {
        let doubled = cooldown.multipliedReportingOverflow(by: 1 << Int64(min(blocks, 30)))
        return doubled.overflow ? maxCooldown : min(doubled.partialValue, maxCooldown)
    }

    /// A setting in the configuration file: keys left out keep the defaults of the limit it applies to.
    package struct Overrides: Decodable, Sendable {
        package var maxFailures: Int?
        package var window: Int64?
        package var cooldown: Int64?
        package var maxCooldown: Int64?

        package func applied(to defaults: AttemptLimit) -> AttemptLimit {
            let cooldown = cooldown ?? defaults.cooldown
            return AttemptLimit(
                maxFailures: maxFailures ?? defaults.maxFailures, window: window ?? defaults.window, cooldown: cooldown,
                maxCooldown: maxCooldown ?? max(defaults.maxCooldown, cooldown))
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.section(AttemptLimit.CodingKeys.self)
            maxFailures = try container.decodeIfPresent(Int.self, forKey: .maxFailures)
            window = try container.decodeIfPresent(Int64.self, forKey: .window)
            cooldown = try container.decodeIfPresent(Int64.self, forKey: .cooldown)
            maxCooldown = try container.decodeIfPresent(Int64.self, forKey: .maxCooldown)
        }
    }

    package func validate(_ name: String) throws {
        guard maxFailures >= 1, window >= 1, cooldown >= 1 else {
            throw ConfigurationError(key: "\(name)", "needs max_failures, window and cooldown of at least 1.")
        }
        guard maxCooldown >= cooldown else { throw ConfigurationError(key: "\(name).max_cooldown", "must be at least its cooldown.") }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case maxFailures = "max_failures"
        case window
        case cooldown
        case maxCooldown = "max_cooldown"
    }
}

extension KeyedDecodingContainer {
    /// An attempt limit's keys change only themselves: `{"max_failures": 3}` keeps the default window and delays.
    package func update(_ value: inout AttemptLimit, _ key: Key) throws {
        if let overrides = try decodeIfPresent(AttemptLimit.Overrides.self, forKey: key) { value = overrides.applied(to: value) }
    }
}
