/// An API's protected-resource metadata (RFC 9728): what a client needs to get a token for it, served at
/// `/.well-known/oauth-protected-resource` followed by the resource's path.
public struct ProtectedResourceMetadata: Codable, Sendable, Equatable {
    /// The resource identifier.
    public var resource: String
    /// The authorization servers that issue its tokens: the Gatehouse issuer.
    public var authorizationServers: [String]
    /// The scopes it accepts.
    public var scopesSupported: [String]?
    /// How it takes tokens: in the `Authorization` header.
    public var bearerMethodsSupported: [String]
    /// Its name, for people.
    public var resourceName: String?
    /// The algorithms its DPoP proofs may use.
    public var dpopSigningAlgValuesSupported: [String]?
    /// Whether it accepts DPoP-bound tokens only.
    public var dpopBoundAccessTokensRequired: Bool?

    /// Metadata for `resource`, whose tokens `authorizationServers` issue.
    public init(
        resource: String, authorizationServers: [String], scopesSupported: [String]? = nil, bearerMethodsSupported: [String] = ["header"],
        resourceName: String? = nil, dpopSigningAlgValuesSupported: [String]? = nil, dpopBoundAccessTokensRequired: Bool? = nil
    ) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        self.bearerMethodsSupported = bearerMethodsSupported
        self.resourceName = resourceName
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
        self.dpopBoundAccessTokensRequired = dpopBoundAccessTokensRequired
    }

    enum CodingKeys: String, CodingKey {
        case resource
        case authorizationServers = "authorization_servers"
        case scopesSupported = "scopes_supported"
        case bearerMethodsSupported = "bearer_methods_supported"
        case resourceName = "resource_name"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case dpopBoundAccessTokensRequired = "dpop_bound_access_tokens_required"
    }
}
