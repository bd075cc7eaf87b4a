import Foundation
import GatehouseFoundation
import HTTPTypes

/// The hooks asked before tokens are issued (the point `tokens`), in the order configured: the claims they add to the
/// ID token, to a JWT access token, and to what userinfo answers for the access token. A hook that fails (no answer in time, an error status, an answer of another
/// shape or a claim outside its namespace) adds nothing and goes on, or refuses the tokens, as its `failure` says.
package struct TokenHooks: Sendable {
    package let targets: [HookTarget]
    package let caller: HookCaller

    /// The hooks of `hooks` that are asked at `tokens`.
    package init(hooks: [HookTarget], caller: HookCaller) {
        targets = hooks.filter { $0.points.contains(.tokens) }
        self.caller = caller
    }

    /// What the hooks add, per token.
    package struct Claims: Sendable, Equatable {
        package var idToken = HookClaims()
        /// Written into the access token when it is a JWT (its resource's format is `jwt`); an opaque token has no
        /// claims to carry them.
        package var accessToken = HookClaims()
        /// Answered by userinfo for the access token (kept with it), beside the claims its scopes release.
        package var userinfo = HookClaims()

        package init() {}
    }

    /// What a hook is told: who the tokens are for, which client asks, by which grant, for which scopes, and which
    /// access token it may add to (`audience`, the resource, absent for the server's own; `access_token_format`).
    struct Request: Encodable {
        var type = "tokens"
        var clientID: String
        var grantType: String
        var scopes: [String]
        var audience: String?
        var accessTokenFormat: String
        var user: HookPerson

        enum CodingKeys: String, CodingKey {
            case type, scopes, user, audience
            case clientID = "client_id"
            case grantType = "grant_type"
            case accessTokenFormat = "access_token_format"
        }
    }

    /// The claims the hooks add to `user`'s tokens for `clientID`, whose access token is for `audience`.
    /// - Throws: ``OAuthError`` `temporarily_unavailable` when a hook whose policy is `deny` failed.
    package func claims(user: User, clientID: String, grantType: String, scopes: [String], audience: TokenAudience) async throws -> Claims {
        guard !targets.isEmpty else { return Claims() }
        let request = Request(
            clientID: clientID, grantType: grantType, scopes: scopes, audience: audience.identifier,
            accessTokenFormat: audience.isJWT ? "jwt" : "opaque", user: HookPerson(user))
        var claims = Claims()
        for target in targets {
            let answer = await caller.call(target, at: .tokens, request: request) { answer in
                let namespace = target.claimsNamespace ?? ""
                let object = try HookAnswer.object(answer, members: ["id_token", "access_token", "userinfo"])
                return (
                    try HookClaims.read(object, token: "id_token", namespace: namespace),
                    try HookClaims.read(object, token: "access_token", namespace: namespace),
                    try HookClaims.read(object, token: "userinfo", namespace: namespace)
                )
            }
            switch answer {
            case .success(let (idToken, accessToken, userinfo)):
                claims.idToken.members += idToken.members
                claims.accessToken.members += accessToken.members
                claims.userinfo.members += userinfo.members
            case .failure where target.failure == .continue: continue
            case .failure:
                throw OAuthError(
                    .temporarilyUnavailable, "A check this server makes before issuing tokens did not answer; try again later.",
                    status: .serviceUnavailable)
            }
        }
        return claims
    }
}
