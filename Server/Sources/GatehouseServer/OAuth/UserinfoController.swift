import GatehouseDomain
import GatehouseProtocol
import Hummingbird

/// The userinfo endpoint (OpenID Connect Core §5.3), GET and POST, with a bearer access token (RFC 6750) or a
/// DPoP-bound one sent as `Authorization: DPoP` with a proof of its key (RFC 9449 §7).
struct UserinfoController: Sendable {
    let tokens: TokenStore
    /// Checks the proofs of DPoP-bound tokens; its nonces (when required) go with every refusal.
    let proofs: DPoPProofCheck

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("/userinfo") { request, _ in try await userinfo(request) }
        router.post("/userinfo") { request, _ in try await userinfo(request) }
    }

    func userinfo(_ request: Request) async throws -> Response {
        let presented: PresentedAccessToken?
        do {
            presented = try PresentedAccessToken.of(request)
        } catch {
            throw refusal(error, presented: nil)
        }
        var token = presented?.token
        if request.method == .post, request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            let form = try await FormParameters.body(of: request)
            if let formToken = form["access_token"] {
                guard token == nil else { throw OAuthError.invalidRequest("Send the access token once, not in both header and body.") }
                token = formToken
            }
        }
        guard let token else {
            var response = OAuthError.invalidToken("No access token was sent.").response()
            response.headers[.wwwAuthenticate] = #"Bearer realm="gatehouse""#
            return response
        }
        func refuse(_ code: OAuthError.Code, _ description: String) -> OAuthError {
            proofs.resourceRefusal(code, description, scheme: presented?.scheme)
        }
        // A token for a resource (RFC 8707) is for that API only.
        guard let (record, user) = try await tokens.activeAccessTokenWithUser(token), record.audience == nil else {
            throw refuse(.invalidToken, "The access token is invalid, expired, revoked, or was issued for another resource.")
        }
        let nonce: String?
        do {
            // A token in the form body is a bearer token (RFC 6750 §2.2).
            nonce = try await (presented ?? PresentedAccessToken(token: token, scheme: .bearer))
                .checkBinding(to: record.jkt, request: request, path: "/userinfo", proofs: proofs)
        } catch {
            throw refusal(error, presented: presented)
        }
        guard record.userID != nil, record.scopes.contains("openid") else {
            throw refuse(.insufficientScope, "The access token was not granted the openid scope.")
        }
        guard let user, !user.isLocked else {
            throw refuse(.invalidToken, "The access token's user is locked or no longer exists.")
        }
        var claims = ScopeClaims.userinfo(for: user, scopes: record.scopes, requested: record.requestedClaims)
        claims.extra = record.userinfoClaims
        var response = JSONResponse.make(claims)
        if let nonce { response.headers[.dpopNonce] = nonce }
        return response
    }

    private func refusal(_ refusal: PresentedAccessToken.Refusal, presented: PresentedAccessToken?) -> OAuthError {
        refusal.oauthError(
            presentedWithDPoP: presented?.scheme == .dpop, nonce: proofs.nonces?.current)
    }
}
