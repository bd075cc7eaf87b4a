/// What the account API asked for when it refused a change for an old sign-in (RFC 9470
/// `insufficient_user_authentication`): the person signs in again, then the change is retried.
public struct AccountStepUp: Sendable, Equatable {
    /// The oldest sign-in, in seconds, the change accepts (`max_age`).
    public var maxAge: Int?
    /// The assurance it needs, when it names one (`acr_values`).
    public var acrValues: [String]
    /// The provider's explanation.
    public var description: String?

    /// A requirement: sign in within `maxAge` seconds, with `acrValues`, for the reason in `description`.
    public init(maxAge: Int? = nil, acrValues: [String] = [], description: String? = nil) {
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.description = description
    }

    /// The requirement a `WWW-Authenticate` challenge states, if it is an `insufficient_user_authentication` one.
    init?(challenge: String?, description: String?) {
        guard let challenge, challenge.contains(#"error="insufficient_user_authentication""#) else { return nil }
        func parameter(_ name: String) -> String? {
            guard let range = challenge.range(of: name + "=") else { return nil }
            let rest = challenge[range.upperBound...]
            if rest.hasPrefix("\"") { return String(rest.dropFirst().prefix { $0 != "\"" }) }
            return String(rest.prefix { $0 != "," && $0 != " " })
        }
        self.init(
            maxAge: parameter("max_age").flatMap { Int($0) }, acrValues: parameter("acr_values")?.split(separator: " ").map(String.init) ?? [],
            description: description)
    }
}
