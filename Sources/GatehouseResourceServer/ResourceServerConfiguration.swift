import Foundation

/// What an API protected by Gatehouse says about itself: who issues its tokens, its identifier (the tokens' audience),
/// and how it checks tokens it cannot read itself.
public struct ResourceServerConfiguration: Sendable {
    /// The Gatehouse issuer, exactly as its tokens name it (`iss`), e.g. `https://id.example.com`.
    public var issuer: URL
    /// The API's resource identifier, registered in Gatehouse (`gatehouse resources add`): every token must name it as
    /// its audience (`aud`).
    public var resource: String
    /// The API's address as clients reach it: DPoP proofs name it (`htu`) and the protected-resource metadata is served
    /// under it. By default the resource identifier, when it is an http(s) URL.
    public var publicURL: URL?
    /// The API's name in its protected-resource metadata.
    public var resourceName: String?
    /// The scopes the API accepts, listed in its metadata for clients to ask for.
    public var scopesSupported: [String]
    /// The confidential client the API authenticates as to introspect opaque tokens (RFC 7662); `nil` accepts JWT
    /// access tokens only.
    public var introspection: IntrospectionCredentials?
    /// Whether only DPoP-bound tokens are accepted (RFC 9449).
    public var requiresDPoP: Bool
    /// Tolerated clock difference with the issuer, in seconds.
    public var leeway: TimeInterval
    /// How old a DPoP proof may be, in seconds; its `jti` is remembered that long to refuse a replay.
    public var proofLifetime: TimeInterval

    /// An API `resource` whose tokens `issuer` signs, accepting `scopesSupported`.
    public init(
        issuer: URL, resource: String, publicURL: URL? = nil, resourceName: String? = nil, scopesSupported: [String] = [],
        introspection: IntrospectionCredentials? = nil, requiresDPoP: Bool = false, leeway: TimeInterval = 30, proofLifetime: TimeInterval = 300
    ) {
        self.issuer = issuer
        self.resource = resource
        self.publicURL = publicURL
        self.resourceName = resourceName
        self.scopesSupported = scopesSupported
        self.introspection = introspection
        self.requiresDPoP = requiresDPoP
        self.leeway = leeway
        self.proofLifetime = proofLifetime
    }

    /// The issuer as tokens and metadata name it: without a trailing slash.
    var issuerString: String {
        let text = issuer.absoluteString
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// ``publicURL``, or the resource identifier when it is an http(s) URL.
    var baseURL: URL? {
        if let publicURL { return publicURL }
        guard let url = URL(string: resource), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        return url
    }
}

/// The confidential client an API authenticates as at Gatehouse's introspection endpoint: one of the resource's
/// introspection clients (`gatehouse resources add … --introspection-client ID`).
public struct IntrospectionCredentials: Sendable {
    /// The client id.
    public var clientID: String
    /// The client secret, sent with HTTP Basic authentication.
    public var clientSecret: String

    /// The credentials of client `clientID`.
    public init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }
}
