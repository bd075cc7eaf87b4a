import Foundation
import GatehouseFoundation

/// Passkeys (`webauthn` in the configuration file): the relying party Gatehouse is to browsers and authenticators, and
/// what it asks of them. Which clients offer passkeys, and where in the sign-in, is each client's sign-on policy.
public struct WebAuthnPolicy: Sendable, Codable, Equatable {
    /// Whether an authenticator must, should or need not verify the user (PIN or biometrics).
    public enum Requirement: String, Sendable, Codable, CaseIterable {
        case required
        case preferred
        case discouraged
    }

    /// Whether registrations ask for the authenticator's attestation.
    public enum Conveyance: String, Sendable, Codable, CaseIterable {
        /// No attestation: authenticators and browsers send `none`, and nothing about the model is learned.
        case none
        /// The authenticator's own attestation, `packed` (self or with a certificate) being the format verified.
        case direct
    }

    /// The relying party id passkeys are bound to: the issuer's host (the default) or a registrable suffix of it.
    /// Passkeys made for one id never work for another, so choose it once.
    public var rpID: String?
    /// The name authenticators show beside the passkey; defaults to the service name.
    public var rpName: String?
    /// The origins ceremonies may run on; defaults to the issuer's origin.
    public var origins: [String]?
    public var userVerification = Requirement.preferred
    /// Whether a passkey is created discoverable, so that it can sign in without a username first.
    public var residentKey = Requirement.preferred
    public var attestation = Conveyance.none
    /// Refuse a registration whose attestation is `none` or self (only certificate attestation passes).
    public var requireAttestation = false
    /// How long the browser waits for the authenticator, in seconds.
    public var timeout = 300
    /// Whether a ceremony may run in a frame of another site.
    public var allowCrossOrigin = false
    /// What a signature counter that did not move forward means: `refuse` (the default) the sign-in, as a cloned
    /// authenticator's would be; `warn` lets it in with a warning in the log, for fleets of authenticators known to
    /// count badly. Either way the log has a warning.
    public var counterRegression = CounterRegression.refuse

    /// What a counter that did not move forward does.
    public enum CounterRegression: String, Sendable, Codable, CaseIterable {
        case refuse
        case warn
    }

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&rpID, .rpID)
        try section.update(&rpName, .rpName)
        try section.update(&origins, .origins)
        try section.update(&userVerification, .userVerification)
        try section.update(&residentKey, .residentKey)
        try section.update(&attestation, .attestation)
        try section.update(&requireAttestation, .requireAttestation)
        try section.update(&timeout, .timeout)
        try section.update(&allowCrossOrigin, .allowCrossOrigin)
        try section.update(&counterRegression, .counterRegression)
    }

    /// The relying party id for `issuer`: the configured one, else the issuer's host.
    package func resolvedRPID(issuer: String) -> String {
        rpID ?? URL(string: issuer)?.host?.lowercased() ?? "localhost"
    }

    /// The origins for `issuer`: the configured ones, else the issuer's scheme, host and port.
    package func resolvedOrigins(issuer: String) -> [String] {
        origins ?? [Self.origin(of: issuer)].compactMap { $0 }
    }

    /// `scheme://host[:port]` of a URL, as `clientDataJSON.origin` spells it.
    package static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased()
        else { return nil }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// Whether `id` can be a relying party id: a domain name (browsers refuse IP addresses).
    package static func isDomain(_ id: String) -> Bool {
        !id.isEmpty && id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" } && id.contains(where: \.isLetter)
    }

    /// The relying party for `issuer`, or `nil` when passkeys cannot work there: an issuer on an IP address
    /// (`http://127.0.0.1:8080`) has no domain for passkeys to be bound to unless `rp_id` names one.
    package func relyingParty(issuer: String) -> RelyingParty? {
        let id = resolvedRPID(issuer: issuer)
        guard Self.isDomain(id) else { return nil }
        return RelyingParty(
            id: id, origins: resolvedOrigins(issuer: issuer), userVerification: userVerification,
            allowCrossOrigin: allowCrossOrigin, refuseCounterRegression: counterRegression == .refuse)
    }

    package func validate(issuer: String) throws {
        let host = URL(string: issuer)?.host?.lowercased() ?? ""
        if let rpID {
            // Browsers refuse an IP address as a relying party id, and an id that is not the page's host or a parent of it.
            guard Self.isDomain(rpID) else {
                throw ConfigurationError(key: "webauthn.rp_id", "must be a domain name (browsers refuse IP addresses), not \"\(rpID)\".")
            }
            guard host == rpID || host.hasSuffix("." + rpID) else {
                throw ConfigurationError(key: "webauthn.rp_id", "must be the issuer's host \(host) or a domain it is under, not \(rpID).")
            }
        }
        let id = resolvedRPID(issuer: issuer)
        for origin in origins ?? [] {
            guard let normalised = Self.origin(of: origin), normalised == origin, URL(string: origin)?.path.isEmpty == true else {
                throw ConfigurationError(key: "webauthn.origins", "\(origin) is not an origin (scheme://host[:port], lowercase, no path).")
            }
            let originHost = URL(string: origin)?.host ?? ""
            guard origin.hasPrefix("https://") || originHost == "localhost" else {
                throw ConfigurationError(key: "webauthn.origins", "\(origin) must use https (browsers allow passkeys over http on localhost only).")
            }
            guard originHost == id || originHost.hasSuffix("." + id) else {
                throw ConfigurationError(key: "webauthn.origins", "\(origin) is not on the relying party id \(id).")
            }
        }
        guard (30...600).contains(timeout) else { throw ConfigurationError(key: "webauthn.timeout", "must be 30 to 600 seconds.") }
        if requireAttestation, attestation == .none {
            throw ConfigurationError(key: "webauthn.require_attestation", "needs attestation direct: with none, no registration could pass.")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case rpID = "rp_id"
        case rpName = "rp_name"
        case origins
        case userVerification = "user_verification"
        case residentKey = "resident_key"
        case attestation
        case requireAttestation = "require_attestation"
        case timeout
        case allowCrossOrigin = "allow_cross_origin"
        case counterRegression = "counter_regression"
    }
}
