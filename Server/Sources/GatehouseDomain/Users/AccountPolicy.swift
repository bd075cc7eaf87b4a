import GatehouseFoundation

/// The account page's rules (`account`).
public struct AccountPolicy: Sendable, Codable, Equatable {
    /// Seconds after signing in during which the account page makes sensitive changes (deleting the account) at once;
    /// after that the person signs in again first (5 minutes).
    public var reauthenticateAfter: Int64 = 300

    /// The defaults.
    public init(reauthenticateAfter: Int64 = 300) {
        self.reauthenticateAfter = reauthenticateAfter
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        reauthenticateAfter = try container.decodeIfPresent(Int64.self, forKey: .reauthenticateAfter) ?? AccountPolicy().reauthenticateAfter
        guard (0...86_400).contains(reauthenticateAfter) else {
            throw ConfigurationError("account.reauthenticate_after must be 0 to 86400 seconds, not \(reauthenticateAfter).")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case reauthenticateAfter = "reauthenticate_after"
    }
}
