import Foundation
import GatehouseProtocol

/// The tokens of a signed-in user, with the moment the access token expires.
public struct TokenSet: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    public var expiresAt: Date
    public var refreshToken: String?
    public var idToken: String?
    public var scope: String?

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
