/// A successful answer of the token endpoint (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3).
public struct TokenResponse: Codable, Sendable, Equatable {
    /// The access token to send as `Authorization: Bearer …`.
    public var accessToken: String
    /// `Bearer`.
    public var tokenType: String
    /// Lifetime of the access token in seconds.
    public var expiresIn: Int
    /// The refresh token, when `offline_access` was granted; it rotates at every use.
    public var refreshToken: String?
    /// The ID token, when `openid` was granted: validate it before trusting its claims.
    public var idToken: String?
    /// The scopes granted, space-separated.
    public var scope: String?
    /// What a token exchange issued (RFC 8693 §2.2.1): `urn:ietf:params:oauth:token-type:access_token`.
    public var issuedTokenType: String?

    /// A token response.
    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int, refreshToken: String? = nil, idToken: String? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    /// The answer of a token exchange (RFC 8693 §2.2.1): an access token and what it is.
    public init(exchanged accessToken: String, tokenType: String, expiresIn: Int, scope: String?, issuedTokenType: String) {
        self.init(accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, scope: scope)
        self.issuedTokenType = issuedTokenType
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case scope
        case issuedTokenType = "issued_token_type"
    }
}
