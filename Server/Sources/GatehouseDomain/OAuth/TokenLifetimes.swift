import GatehouseFoundation

/// How long each kind of credential lives, in seconds.
public struct TokenLifetimes: Sendable, Codable, Equatable {
    /// Authorization codes: short, at most 10 minutes (RFC 6749 §4.1.2).
    public var authorizationCode: Int64 = 60
    public var accessToken: Int64 = 900
    public var idToken: Int64 = 900
    public var refreshToken: Int64 = 30 * 24 * 3600
    /// A browser's sign-in session, however active (NIST SP 800-63B §4.2.3 asks AAL2 to re-authenticate within 12 hours).
    public var session: Int64 = 8 * 3600
    /// A browser's sign-in session ends after this long without use at Gatehouse (SP 800-63B AAL2: 30 minutes).
    public var sessionIdle: Int64 = 30 * 60
    /// An authorization request waiting for the user to sign in.
    public var authorizationRequest: Int64 = 900
    /// A pushed authorization request (RFC 9126) waiting for the browser to bring its `request_uri`: a minute.
    public var pushedRequest: Int64 = 60
    /// A device authorization (RFC 8628) waiting for its user code: 10 minutes.
    public var deviceCode: Int64 = 600
    /// The seconds a device waits between polls of the token endpoint; each poll that comes sooner adds 5 (RFC 8628 §3.5).
    public var devicePollInterval: Int64 = 5
    /// How long after a refresh token's rotation its client may present it again and get the same successor (the answer
    /// was lost on the way) instead of the family's revocation: 30 seconds; 0 turns retries into replays.
    public var refreshReuseGrace: Int64 = 30

    /// How long a retired signing key stays published: the longest lifetime of a token it signed, and five minutes for
    /// clocks that differ.
    public var retiredKeyPublication: Int64 { max(idToken, accessToken) + 300 }

    /// The longest an access token may live: one day. A revoked token family is remembered this long when only
    /// its access tokens could still be in use (see `GrantRevocations`).
    public static let maximumAccessToken: Int64 = 86_400
    /// The longest a refresh token may live: 366 days. A revoked token family whose newest refresh token is
    /// unknown is remembered this long.
    public static let maximumRefreshToken: Int64 = 366 * 86_400

    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = TokenLifetimes()
        authorizationCode = try container.decodeIfPresent(Int64.self, forKey: .authorizationCode) ?? defaults.authorizationCode
        accessToken = try container.decodeIfPresent(Int64.self, forKey: .accessToken) ?? defaults.accessToken
        idToken = try container.decodeIfPresent(Int64.self, forKey: .idToken) ?? defaults.idToken
        refreshToken = try container.decodeIfPresent(Int64.self, forKey: .refreshToken) ?? defaults.refreshToken
        session = try container.decodeIfPresent(Int64.self, forKey: .session) ?? defaults.session
        sessionIdle = try container.decodeIfPresent(Int64.self, forKey: .sessionIdle) ?? defaults.sessionIdle
        authorizationRequest = try container.decodeIfPresent(Int64.self, forKey: .authorizationRequest) ?? defaults.authorizationRequest
        deviceCode = try container.decodeIfPresent(Int64.self, forKey: .deviceCode) ?? defaults.deviceCode
        pushedRequest = try container.decodeIfPresent(Int64.self, forKey: .pushedRequest) ?? defaults.pushedRequest
        devicePollInterval = try container.decodeIfPresent(Int64.self, forKey: .devicePollInterval) ?? defaults.devicePollInterval
        refreshReuseGrace = try container.decodeIfPresent(Int64.self, forKey: .refreshReuseGrace) ?? defaults.refreshReuseGrace
    }

    package func validate() throws {
        guard (1...600).contains(authorizationCode) else {
            throw ConfigurationError(key: "token_lifetimes.authorization_code", "must be 1 to 600 seconds.")
        }
        for (name, value) in [
            ("access_token", accessToken), ("id_token", idToken), ("refresh_token", refreshToken), ("session", session), ("session_idle", sessionIdle),
            ("authorization_request", authorizationRequest),
        ] where value < 1 {
            throw ConfigurationError(key: "token_lifetimes.\(name)", "must be at least 1 second.")
        }
        guard (5...600).contains(pushedRequest) else {
            throw ConfigurationError(key: "token_lifetimes.pushed_request", "must be 5 to 600 seconds.")
        }
        guard (5...3600).contains(deviceCode) else {
            throw ConfigurationError(key: "token_lifetimes.device_code", "must be 5 to 3600 seconds.")
        }
        guard (1...60).contains(devicePollInterval) else {
            throw ConfigurationError(key: "token_lifetimes.device_poll_interval", "must be 1 to 60 seconds.")
        }
        guard (0...300).contains(refreshReuseGrace) else {
            throw ConfigurationError(key: "token_lifetimes.refresh_reuse_grace", "must be 0 to 300 seconds.")
        }
        guard accessToken <= Self.maximumAccessToken else {
            throw ConfigurationError(
                key: "token_lifetimes.access_token", "must be at most \(Self.maximumAccessToken) seconds (one day); use refresh tokens for longer access.")
        }
        guard refreshToken <= Self.maximumRefreshToken else {
            throw ConfigurationError(key: "token_lifetimes.refresh_token", "must be at most \(Self.maximumRefreshToken) seconds (366 days).")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case authorizationCode = "authorization_code"
        case accessToken = "access_token"
        case idToken = "id_token"
        case refreshToken = "refresh_token"
        case session
        case sessionIdle = "session_idle"
        case authorizationRequest = "authorization_request"
        case deviceCode = "device_code"
        case pushedRequest = "pushed_request"
        case devicePollInterval = "device_poll_interval"
        case refreshReuseGrace = "refresh_reuse_grace"
    }
}
