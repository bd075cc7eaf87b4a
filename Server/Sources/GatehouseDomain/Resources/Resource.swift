import Foundation

/// An API that accepts this server's access tokens: an OAuth protected resource, named by clients with `resource`
/// (RFC 8707) on authorization and token requests. A token issued for it carries its ``id`` as the audience (`aud`)
/// and only the scopes it accepts.
public struct Resource: Sendable, Equatable, Codable {
    /// The resource's identifier and the tokens' audience: an https URL (http only on a loopback host) or a URN,
    /// without a fragment.
    public var id: String
    /// The name people read on the consent node.
    public var name: String
    /// The scopes the resource accepts, each with what it lets an application do.
    public var scopes: [Scope]
    /// Whether its access tokens are JWTs (RFC 9068), validated by the resource offline, or opaque strings it
    /// introspects (RFC 7662).
    public var tokenFormat: TokenFormat
    /// What its JWT access tokens are signed with: RS256, which every resource server must accept (RFC 9068 §4), or
    /// ES256, which costs a small fraction as much to sign (`gatehouse sign-rate`) and a resource server must then agree to.
    public var tokenAlgorithm: SigningAlgorithm
    /// Seconds its access tokens live; `nil` for the server's `token_lifetimes.access_token`.
    public var accessTokenLifetime: Int64?
    /// Whether tokens for it are issued only bound to a DPoP key (RFC 9449).
    public var requiresDPoP: Bool
    /// The clients that may ask for it. Empty: any client on a person's behalf (a third party asks the person first);
    /// a client acting for itself (client credentials) must always be listed.
    public var allowedClients: [String]
    /// Confidential clients the resource server itself authenticates as, which may introspect tokens issued for it.
    public var introspectionClients: [String]
    /// When it was registered (Unix seconds).
    public var createdAt: Int64

    /// A scope a resource accepts.
    public struct Scope: Sendable, Equatable, Codable {
        /// The scope as clients request it, unique among the server's scopes.
        public var name: String
        /// What it lets an application do, in the words a person reads before allowing it.
        public var description: String

        /// The scope `name`, described as `description`.
        public init(name: String, description: String) {
            self.name = name
            self.description = description
        }
    }

    /// The form of a resource's access tokens.
    public enum TokenFormat: String, Sendable, Codable, CaseIterable {
        /// A signed JWT (RFC 9068, `typ: at+jwt`).
        case jwt
        /// A random string that only introspection can explain.
        case opaque
    }

    /// The algorithm that signs a resource's JWT access tokens.
    public enum SigningAlgorithm: String, Sendable, Codable, CaseIterable {
        /// RSASSA-PKCS1-v1_5 with SHA-256: what RFC 9068 requires resource servers to accept.
        case rs256 = "RS256"
        /// ECDSA P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// The names of the scopes it accepts.
    public var scopeNames: [String] { scopes.map(\.name) }

    /// Whether `clientID` may ask for tokens for it; `actingForItself` for the client credentials grant.
    public func allows(_ clientID: String, actingForItself: Bool = false) -> Bool {
        allowedClients.contains(clientID) || (allowedClients.isEmpty && !actingForItself)
    }

    package enum CodingKeys: String, CodingKey {
        case id, name, scopes
        case tokenFormat = "token_format"
        case tokenAlgorithm = "token_alg"
        case accessTokenLifetime = "access_token_lifetime"
        case requiresDPoP = "require_dpop"
        case allowedClients = "allowed_clients"
        case introspectionClients = "introspection_clients"
        case createdAt = "created_at"
    }

    /// A resource as registered; every token for it an RS256 JWT unless said otherwise.
    public init(
        id: String, name: String, scopes: [Scope] = [], tokenFormat: TokenFormat = .jwt, tokenAlgorithm: SigningAlgorithm = .rs256,
        accessTokenLifetime: Int64? = nil, requiresDPoP: Bool = false, allowedClients: [String] = [], introspectionClients: [String] = [],
        createdAt: Int64 = 0
    ) {
        self.id = id
        self.name = name
        self.scopes = scopes
        self.tokenFormat = tokenFormat
        self.tokenAlgorithm = tokenAlgorithm
        self.accessTokenLifetime = accessTokenLifetime
        self.requiresDPoP = requiresDPoP
        self.allowedClients = allowedClients
        self.introspectionClients = introspectionClients
        self.createdAt = createdAt
    }
}
