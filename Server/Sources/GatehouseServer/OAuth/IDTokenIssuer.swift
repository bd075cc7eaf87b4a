import GatehouseDomain

/// Mints signed ID tokens for a grant.
struct IDTokenIssuer: Sendable {
    let server: IdentityServer

    /// An ID token for `user`, who the caller has already checked is the grant's user and not locked.
    func issue(for grant: Grant, user: User, client: Client, nonce: String?) async throws -> String {
        let now = server.clock.now()
        var claims = IDTokenClaims(
            iss: server.issuer, sub: user.id, aud: client.id, exp: now + server.configuration.tokens.idToken, iat: now,
            authTime: grant.authTime, nonce: nonce, azp: client.id, amr: grant.methods.isEmpty ? nil : grant.methods,
            acr: grant.methods.contains("mfa") ? LoginFlow.multiFactorACR : LoginFlow.passwordACR
        )
        ScopeClaims.apply(to: &claims, user: user, scopes: grant.scopes)
        return try await server.keys.sign(claims, algorithm: client.idTokenAlgorithm)
    }
}
