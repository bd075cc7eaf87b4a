/// The answer of the introspection endpoint (RFC 7662 §2.2). An inactive token carries only `active: false`.
public struct IntrospectionResponse: Codable, Sendable, Equatable {
    public var active: Bool
    public var scope: String?
    public var clientID: String?
    public var username: String?
    public var tokenType: String?
    public var expiresAt: Int?
    public var issuedAt: Int?
    public var subject: String?
    public var audience: String?
    public var issuer: String?

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
    }
}
