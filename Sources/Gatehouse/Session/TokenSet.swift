import Foundation
import GatehouseProtocol

/// The tokens of a signed-in user, with the moment the access token expires.
public struct TokenSet: Codable, Sendable, Equatable {
    /// The access token to send as `Authorization: Bearer …`.
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    /// When the access token expires, on this device's clock.
    public var expiresAt: Date
    /// The refresh token, when `offline_access` was granted; it rotates at every refresh.
    public var refreshToken: String?
    /// The last ID token, as received.
    public var idToken: String?
    /// The scopes granted, space-separated.
    public var scope: String?

    /// Tokens as stored.
    public init(accessToken: String, tokenType: String = "Bearer", expiresAt: Date, refreshToken: String? = nil, idToken: String? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    /// Tokens from a token response received at `now`. A refresh response without a new refresh token or
    /// ID token keeps the previous ones (RFC 6749 §6).
    public init(response: TokenResponse, receivedAt now: Date = Date(), previous: TokenSet? = nil) {
        // Whole seconds: what the provider means, and what survives storage exactly.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + TimeInterval(response.expiresIn)).rounded(.down))
        self.init(
            accessToken: response.accessToken, tokenType: response.tokenType, expiresAt: expiresAt,
            refreshToken: response.refreshToken ?? previous?.refreshToken, idToken: response.idToken ?? previous?.idToken,
            scope: response.scope ?? previous?.scope)
    }

    /// Whether the access token expires within `margin` seconds of `now`.
    public func expires(within margin: TimeInterval, now: Date = Date()) -> Bool {
        expiresAt.timeIntervalSince(now) <= margin
    }
}
