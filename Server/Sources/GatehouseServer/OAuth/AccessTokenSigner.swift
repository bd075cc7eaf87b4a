import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation

/// Makes the JWT access tokens (RFC 9068) of resources whose format is `jwt`, once their rows are written: the row's
/// random token becomes the `jti`, and the JWT, signed with the server's key of the resource's algorithm (RS256 unless the
/// operator chose ES256), is what the client receives.
struct AccessTokenSigner: Sendable {
    let issuer: String
    let keys: SigningKeyRing
    let clock: UnixClock

    /// What a JWT access token says beyond its audience: who it is for and how they signed in.
    struct Subject: Sendable {
        var clientID: String
        /// The person, or `nil` for a client acting for itself.
        var userID: String?
        var authTime: Int64?
        var methods: [String]
        /// The clients acting for the person (`act`), most recent first.
        var actors: [String] = []
    }

    /// `minted`'s access token as a JWT for `audience` when its format is `jwt`, with `extra` (the claims the hooks at
    /// `tokens` added), expiring `lifetime` seconds from now but never after `notAfter`; else the opaque token as it is.
    func token(
        _ minted: String, for audience: TokenAudience, subject: Subject, scopes: [String], jkt: String?, lifetime: Int64,
        notAfter: Int64 = .max, extra: HookClaims = HookClaims()
    ) async throws -> String {
        guard audience.isJWT, let resource = audience.resource else { return minted }
        let now = clock.now()
        var claims = AccessTokenClaims(
            iss: issuer, sub: subject.userID ?? subject.clientID, aud: resource.id, clientID: subject.clientID,
            scope: scopes.isEmpty ? nil : scopes.joined(separator: " "), jti: minted, exp: min(now + lifetime, notAfter), iat: now,
            authTime: subject.userID == nil ? nil : subject.authTime,
            acr: subject.userID == nil ? nil : LoginFlow.acr(for: subject.methods),
            amr: subject.userID == nil || subject.methods.isEmpty ? nil : subject.methods, jkt: jkt, actors: subject.actors)
        claims.extra = extra
        return try await keys.sign(claims, algorithm: resource.tokenAlgorithm.rawValue, type: .accessToken)
    }
}
