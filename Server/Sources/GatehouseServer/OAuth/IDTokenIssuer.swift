import Crypto
import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol

/// Mints signed ID tokens for a grant.
struct IDTokenIssuer: Sendable {
    let issuer: String
    /// How long an ID token is valid, in seconds (`token_lifetimes.id_token`).
    let lifetime: Int64
    let keys: SigningKeyRing
    let clock: UnixClock

    /// An ID token for `user`, who the caller has already checked is the grant's user and not locked, issued beside
    /// `accessToken` (its hash goes in `at_hash`), with `extra`: the claims the hooks at `tokens` added.
    func issue(
        for grant: Grant, user: User, client: Client, nonce: String?, accessToken: String? = nil, extra: HookClaims = HookClaims()
    ) async throws -> String {
        let now = clock.now()
        var claims = IDTokenClaims(
            iss: issuer, sub: user.id, aud: client.id, exp: now + lifetime, iat: now,
            authTime: grant.authTime, nonce: nonce, azp: client.id, amr: grant.methods.isEmpty ? nil : grant.methods,
            acr: LoginFlow.acr(for: grant.methods), sid: grant.sessionID
        )
        ScopeClaims.apply(to: &claims, user: user, scopes: grant.scopes, requested: grant.requestedClaims)
        claims.atHash = accessToken.map(Self.hash)
        claims.extra = extra
        return try await keys.sign(claims, algorithm: client.idTokenAlgorithm)
    }

    /// `at_hash` of `token` (OpenID Connect Core §3.1.3.6): the left half of its SHA-256 (RS256 and ES256 both hash
    /// with SHA-256), base64url.
    static func hash(_ token: String) -> String {
        Base64URL.encode(Array(Array(SHA256.hash(data: Data(token.utf8))).prefix(16)))
    }
}
