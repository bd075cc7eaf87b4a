import GatehouseFoundation

/// Clients that register themselves (`dynamic_registration`; RFC 7591 and RFC 7592): off unless the operator turns it
/// on. Such clients are always third parties: people allow them what they ask for on the consent node.
public struct DynamicRegistrationPolicy: Sendable, Codable, Equatable {
    /// Whether `/register` answers at all (and discovery names it as `registration_endpoint`).
    public var enabled = false
    /// Whether a client may register without an initial access token: then only a public client with loopback or https
    /// redirect URIs, counted per client address, and removed when it is not used in time.
    public var open = false
    /// Open registrations one client address may make per hour.
    public var registrationsPerHour = 10
    /// Seconds an openly registered client lives before it first gets a token; unused by then, it is removed.
    public var unusedClientLifetime: Int64 = 86_400

    /// The defaults: off.
    public init(enabled: Bool = false, open: Bool = false, registrationsPerHour: Int = 10, unusedClientLifetime: Int64 = 86_400) {
        self.enabled = enabled
        self.open = open
        self.registrationsPerHour = registrationsPerHour
        self.unusedClientLifetime = unusedClientLifetime
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = DynamicRegistrationPolicy()
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? defaults.enabled
        open = try container.decodeIfPresent(Bool.self, forKey: .open) ?? defaults.open
        registrationsPerHour = try container.decodeIfPresent(Int.self, forKey: .registrationsPerHour) ?? defaults.registrationsPerHour
        unusedClientLifetime = try container.decodeIfPresent(Int64.self, forKey: .unusedClientLifetime) ?? defaults.unusedClientLifetime
        guard (1...10_000).contains(registrationsPerHour) else {
            throw ConfigurationError("dynamic_registration.registrations_per_hour must be 1 to 10000, not \(registrationsPerHour).")
        }
        guard (60...2_592_000).contains(unusedClientLifetime) else {
            throw ConfigurationError("dynamic_registration.unused_client_lifetime must be 60 to 2592000 seconds (30 days), not \(unusedClientLifetime).")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, open
        case registrationsPerHour = "registrations_per_hour"
        case unusedClientLifetime = "unused_client_lifetime"
    }
}
