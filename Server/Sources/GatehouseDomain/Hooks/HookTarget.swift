import Foundation
import GatehouseFoundation

/// An operator's endpoint that Gatehouse asks at points of a sign-in (`hooks` in the configuration file): each request
/// signed as Standard Webhooks has it, answered within `timeout`, and a failure handled as `failure` says.
public struct HookTarget: Sendable, Decodable, Equatable {
    /// Where a hook is asked.
    public enum Point: String, Sendable, Codable, CaseIterable {
        /// Before an account is created, once the registration form is filled in well: the answer allows it, refuses
        /// it, or sets the new profile's name fields.
        case registration
        /// After the first factor (the password, a passkey without it, or another provider's answer for an identity
        /// already linked) proved the account: the answer allows the sign-in, refuses it, or requires a second factor
        /// whatever the sign-on policy (or a provider trusted for its second factor) says.
        case firstFactor = "first_factor"
        /// Before tokens are issued: the answer may add claims, within the hook's `claims_namespace`, to the ID token
        /// and to a JWT access token.
        case tokens
        /// After events of the audit trail: each one the hook's `events` name is sent to it once it is recorded, in
        /// order, and sent again until accepted. Nothing waits for it and its answer changes nothing.
        case events
    }

    /// What a hook that did not answer, or answered something unreadable, means.
    public enum FailurePolicy: String, Sendable, Codable {
        /// The step it guards is refused: nothing is issued that the hook could not see.
        case deny
        /// The step goes on as if the hook had had nothing to say.
        case `continue`
    }

    /// The hook's name in logs, metrics and traces.
    public var id: String
    /// An https URL (http only on loopback, for development).
    public var url: String
    /// The key requests are signed with: a `whsec_` secret (the base64 of its key) or at least 32 characters.
    public var secret: String
    public var points: [Point]
    /// Seconds the hook has to answer: 2 by default.
    public var timeout: Int64 = 2
    public var failure = FailurePolicy.deny
    /// What every claim name the hook adds must begin with (e.g. `https://example.com/`), so it never replaces a claim
    /// of the standards or another hook's.
    public var claimsNamespace: String?
    /// The audit events a hook at `events` is told about; every type when absent.
    public var events: [AuditEventType]?

    public init(id: String, url: String, secret: String, points: [Point]) {
        self.id = id
        self.url = url
        self.secret = secret
        self.points = points
    }

    public init(from decoder: any Decoder) throws {
        let section = try decoder.section(CodingKeys.self)
        self.init(
            id: try section.decode(String.self, forKey: .id), url: try section.decode(String.self, forKey: .url),
            secret: try section.decode(String.self, forKey: .secret), points: try section.decode([Point].self, forKey: .points))
        try section.update(&timeout, .timeout)
        try section.update(&failure, .failure)
        try section.update(&claimsNamespace, .claimsNamespace)
        try section.update(&events, .events)
    }

    package static func key(_ index: Int, _ member: String) -> String { "hooks[\(index)].\(member)" }

    package func validate(index: Int) throws {
        let key = { Self.key(index, $0) }
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || "-_".contains($0) }) else {
            throw ConfigurationError(key: key("id"), "must be letters, digits, - and _.")
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host,
            scheme == "https" || (scheme == "http" && LoopbackHost.contains(host))
        else { throw ConfigurationError(key: key("url"), "must be an https URL (http only on loopback), not \(url).") }
        let signingKey = secret.hasPrefix("whsec_") ? Data(base64Encoded: String(secret.dropFirst(6))) : nil
        guard (signingKey?.count ?? 0) >= 24 || (!secret.hasPrefix("whsec_") && secret.count >= 32) else {
            throw ConfigurationError(key: key("secret"), "must be a whsec_ secret of at least 24 bytes, or at least 32 characters.")
        }
        guard !points.isEmpty else { throw ConfigurationError(key: key("points"), "must name at least one point.") }
        guard (1...10).contains(timeout) else { throw ConfigurationError(key: key("timeout"), "must be 1 to 10 seconds.") }
        if points.contains(.tokens) {
            guard let claimsNamespace, claimsNamespace.count >= 3 else {
                throw ConfigurationError(key: key("claims_namespace"), "must be given (e.g. https://example.com/) for a hook at tokens.")
            }
        }
        if let events {
            guard points.contains(.events) else { throw ConfigurationError(key: key("events"), "is read only for a hook at the point events.") }
            guard !events.isEmpty else { throw ConfigurationError(key: key("events"), "must name at least one event type, or be left out for all.") }
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, url, secret, points, timeout, failure, events
        case claimsNamespace = "claims_namespace"
    }
}
