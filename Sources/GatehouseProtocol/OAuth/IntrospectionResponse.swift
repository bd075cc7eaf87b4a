/// The answer of the introspection endpoint (RFC 7662 §2.2). An inactive token carries only `active: false`.
public struct IntrospectionResponse: Codable, Sendable, Equatable {
    /// Whether the token is active; when false, nothing else is said about it.
    public var active: Bool
    /// The token's scopes, space-separated.
    public var scope: String?
    /// The client the token was issued to.
    public var clientID: String?
    /// The signed-in user's username, for tokens issued to a user.
    public var username: String?
    /// `Bearer`, `DPoP` for a DPoP-bound access token, or `refresh_token`.
    public var tokenType: String?
    /// When the token expires, in seconds since 1970 (`exp`).
    public var expiresAt: Int?
    /// When the token was issued, in seconds since 1970 (`iat`).
    public var issuedAt: Int?
    /// The user's subject identifier (`sub`), for tokens issued to a user.
    public var subject: String?
    /// Who the token is for (`aud`): the client.
    public var audience: String?
    /// The provider that issued the token (`iss`).
    public var issuer: String?
    /// The key a DPoP-bound token is bound to (`cnf`, RFC 9449 §6.2).
    public var confirmation: Confirmation?
    /// Who acts for the subject (`act`, RFC 8693 §4.1), for a token a client got by exchanging the subject's.
    public var actor: TokenActor?

    /// A token's confirmation claim (RFC 7800): the SHA-256 thumbprint of its DPoP key.
    public struct Confirmation: Codable, Sendable, Equatable {
        /// The JWK SHA-256 thumbprint (RFC 7638), base64url.
        public var jkt: String

        /// A confirmation by the key whose thumbprint is `jkt`.
        public init(jkt: String) { self.jkt = jkt }
    }

    /// An introspection answer; an inactive token leaves every other member out.
    public init(
        active: Bool, scope: String? = nil, clientID: String? = nil, username: String? = nil, tokenType: String? = nil, expiresAt: Int? = nil,
        issuedAt: Int? = nil, subject: String? = nil, audience: String? = nil, issuer: String? = nil
    ) {
        self.active = active
        self.scope = scope
        self.clientID = clientID
        self.username = username
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.subject = subject
        self.audience = audience
        self.issuer = issuer
    }

    /// The answer for a token that is unknown, expired, revoked or not the caller's.
    public static let inactive = IntrospectionResponse(active: false)

    enum CodingKeys: String, CodingKey {
        case active, scope, username
        case clientID = "client_id"
        case tokenType = "token_type"
        case expiresAt = "exp"
        case issuedAt = "iat"
        case subject = "sub"
        case audience = "aud"
        case issuer = "iss"
        case confirmation = "cnf"
        case actor = "act"
    }
}
