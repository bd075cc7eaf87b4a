import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation

/// Mints signed ID tokens for a grant.
struct IDTokenIssuer: Sendable {
    let issuer: String
    /// How long an ID token is valid, in seconds (`token_lifetimes.id_token`).
    let lifetime: Int64
    let keys: SigningKeyRing
    let clock: UnixClock

    /// An ID token for `user`, who the caller has already checked is the grant's user and not locked.
    func issue(for grant: Grant, user: User, client: Client, nonce: String?) async throws -> String {
        let now = clock.now()
        var claims = IDTokenClaims(
            iss: issuer, sub: user.id, aud: client.id, exp: now + lifetime, iat: now,
            authTime: grant.authTime, nonce: nonce, azp: client.id, amr: grant.methods.isEmpty ? nil : grant.methods,
            acr: LoginFlow.acr(for: grant.methods), sid: grant.sessionID
        )
        ScopeClaims.apply(to: &claims, user: user, scopes: grant.scopes)
        return try await keys.sign(claims, algorithm: client.idTokenAlgorithm)
    }
}
