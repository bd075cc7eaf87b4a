/// An application registered to sign users in (an OAuth 2.0 client / OpenID Connect relying party).
public struct Client: Sendable, Equatable, Codable {
    public var id: String
    public var name: String?
    /// SHA-256 of the secret, for confidential clients; `nil` for public clients (apps that cannot keep a secret).
    public var secretHash: String?
    /// Redirect URIs, matched by exact string.
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// Scopes the client may request.
    public var scopes: [String]
    /// `RS256` (default) or `ES256`, the client's `id_token_signed_response_alg`.
    public var idTokenAlgorithm: String
    public var createdAt: Int64
    /// Whether an authorization request must carry a PKCE challenge: always for public clients, and by default
    /// for confidential ones too (RFC 9700 §2.1.1); `false` only for a legacy confidential client that cannot send one.
    public var requiresPKCE = true

    public var isPublic: Bool { secretHash == nil }

    enum CodingKeys: String, CodingKey {
        case id, name, scopes
        case secretHash = "secret_hash"
        case redirectURIs = "redirect_uris"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case idTokenAlgorithm = "id_token_signed_response_alg"
        case createdAt = "created_at"
        case requiresPKCE = "require_pkce"
    }
}
