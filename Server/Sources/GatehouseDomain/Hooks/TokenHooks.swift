import Foundation
import GatehouseFoundation
import HTTPTypes

/// The hooks asked before tokens are issued (the point `tokens`), in the order configured: the claims they add to the
/// ID token. A hook that fails (no answer in time, an error status, an answer of another shape or a claim outside its
/// namespace) adds nothing and goes on, or refuses the tokens, as its `failure` says.
package struct TokenHooks: Sendable {
    package let targets: [HookTarget]
    package let caller: HookCaller

    /// The hooks of `hooks` that are asked at `tokens`.
    package init(hooks: [HookTarget], caller: HookCaller) {
        targets = hooks.filter { $0.points.contains(.tokens) }
        self.caller = caller
    }

    /// What a hook is told: who the tokens are for, which client asks, by which grant, for which scopes.
    struct Request: Encodable {
        var type = "tokens"
        var clientID: String
        var grantType: String
        var scopes: [String]
        var user: HookPerson

        enum CodingKeys: String, CodingKey {
            case type, scopes, user
            case clientID = "client_id"
            case grantType = "grant_type"
        }
    }

    /// The claims the hooks add to the ID token of `user`'s tokens for `clientID`.
    /// - Throws: ``OAuthError`` `temporarily_unavailable` when a hook whose policy is `deny` failed.
    package func idTokenClaims(user: User, clientID: String, grantType: String, scopes: [String]) async throws -> HookClaims {
        guard !targets.isEmpty else { return HookClaims() }
        let request = Request(
            clientID: clientID, grantType: grantType, scopes: scopes, user: HookPerson(user))
        var claims = HookClaims()
        for target in targets {
            let answer = await caller.call(target, at: .tokens, request: request) { answer in
                try HookClaims.read(answer, token: "id_token", namespace: target.claimsNamespace ?? "", allowedMembers: ["id_token"])
            }
            switch answer {
            case .success(let added): claims.members += added.members
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
