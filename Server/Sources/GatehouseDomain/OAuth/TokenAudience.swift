/// Whom an access token is for: the server's own endpoints (userinfo, the account API) or one resource (RFC 8707).
/// It decides the token's scopes, audience, lifetime and form.
package struct TokenAudience: Sendable, Equatable {
    /// The resource, or `nil` for the server itself.
    package var resource: Resource?

    /// The server's own endpoints: what every token was before resources.
    package static let server = TokenAudience(resource: nil)

    package init(resource: Resource?) {
        self.resource = resource
    }

    /// The token's `aud`: the resource's identifier; `nil` for the server.
    package var identifier: String? { resource?.id }

    /// Whether the token is a signed JWT (RFC 9068) rather than an opaque string.
    package var isJWT: Bool { resource?.tokenFormat == .jwt }

    /// Of the `granted` scopes, those a token for this audience carries: the resource's own, or the server's.
    package func scopes(of granted: [String]) -> [String] {
        guard let resource else { return granted.filter(ClientRegistrationRules.knownScopes.contains) }
        let accepted = Set(resource.scopeNames)
        return granted.filter(accepted.contains)
    }

    /// Seconds the token lives: the resource's own lifetime, or `standard` (`token_lifetimes.access_token`).
    package func lifetime(standard: Int64) -> Int64 {
        resource?.accessTokenLifetime ?? standard
    }
}
