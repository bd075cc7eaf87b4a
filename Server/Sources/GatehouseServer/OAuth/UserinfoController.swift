import GatehouseProtocol
import Hummingbird

/// The userinfo endpoint (OpenID Connect Core §5.3), GET and POST, with a bearer access token (RFC 6750) or a
/// DPoP-bound one sent as `Authorization: DPoP` with a proof of its key (RFC 9449 §7).
struct UserinfoController: Sendable {
    let server: IdentityServer

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("/userinfo") { request, _ in try await userinfo(request) }
        router.post("/userinfo") { request, _ in try await userinfo(request) }
    }

    func userinfo(_ request: Request) async throws -> Response {
        var token: String?
        var usesDPoP = false
        if let authorization = request.headers[.authorization] {
            if let credentials = AuthorizationCredentials.of("DPoP", in: authorization), !credentials.isEmpty {
                token = credentials
                usesDPoP = true
            } else if let credentials = AuthorizationCredentials.of("Bearer", in: authorization), !credentials.isEmpty {
                token = credentials
            } else {
                throw OAuthError.invalidToken("Send the access token as Authorization: Bearer <token> (or DPoP <token> with a proof).")
            }
        }
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
            var error = OAuthError(code, description)
            error.dpopChallenge = usesDPoP || code == .invalidDPoPProof || code == .useDPoPNonce
            if error.dpopChallenge, server.configuration.dpop.requireNonce { error.dpopNonce = server.dpopNonces.current }
            return error
        }
        guard let (record, user) = try await server.tokens.activeAccessTokenWithUser(token) else {
            throw refuse(.invalidToken, "The access token is invalid, expired or revoked.")
        }
        var nonce: String?
        switch (usesDPoP, record.jkt) {
        case (false, nil):
            break
        case (false, .some):
            // RFC 9449 §7.2: a bound token sent as a bearer token is refused, so a stolen one is useless alone.
            var error = refuse(.invalidToken, "This access token is bound to a DPoP key: send it as Authorization: DPoP with a proof.")
            error.dpopChallenge = true
            throw error
        case (true, nil):
            throw refuse(.invalidToken, "This access token is not bound to a DPoP key: send it as Authorization: Bearer.")
        case (true, .some(let jkt)):
            let proof: DPoPProof?
            do {
                proof = try await DPoPProofCheck(server: server).proof(of: request, path: "/userinfo", accessToken: token)
            } catch .invalidProof(let reason) {
                throw refuse(.invalidDPoPProof, reason)
            } catch .nonceRequired(let reason) {
                throw refuse(.useDPoPNonce, reason)
            }
            guard let proof else { throw refuse(.invalidDPoPProof, "A DPoP-bound access token needs a DPoP proof header.") }
            guard ConstantTime.equals(proof.thumbprint, jkt) else {
                throw refuse(.invalidDPoPProof, "The DPoP proof is signed by another key than the one the access token is bound to.")
            }
            if server.configuration.dpop.requireNonce { nonce = server.dpopNonces.current }
        }
        guard record.userID != nil, record.scopes.contains("openid") else {
            throw refuse(.insufficientScope, "The access token was not granted the openid scope.")
        }
        guard let user, !user.isLocked else {
            throw refuse(.invalidToken, "The access token's user is locked or no longer exists.")
        }
        var response = JSONResponse.make(ScopeClaims.userinfo(for: user, scopes: record.scopes))
        if let nonce { response.headers[DPoPProofCheck.nonceHeader] = nonce }
        return response
    }
}
