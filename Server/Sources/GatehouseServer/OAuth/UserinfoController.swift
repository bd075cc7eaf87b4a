import Hummingbird

/// The userinfo endpoint (OpenID Connect Core §5.3), GET and POST, with a bearer access token (RFC 6750).
struct UserinfoController: Sendable {
    let server: IdentityServer

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("/userinfo") { request, _ in try await userinfo(request) }
        router.post("/userinfo") { request, _ in try await userinfo(request) }
    }

    func userinfo(_ request: Request) async throws -> Response {
        var token: String?
        if let authorization = request.headers[.authorization] {
            guard let credentials = AuthorizationCredentials.of("Bearer", in: authorization), !credentials.isEmpty else {
                throw OAuthError.invalidToken("Send the access token as Authorization: Bearer <token>.")
            }
            token = credentials
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
        guard let (record, user) = try await server.tokens.activeAccessTokenWithUser(token) else {
            throw OAuthError.invalidToken("The access token is invalid, expired or revoked.")
        }
        guard record.userID != nil, record.scopes.contains("openid") else {
            throw OAuthError(.insufficientScope, "The access token was not granted the openid scope.")
        }
        guard let user, !user.isLocked else {
            throw OAuthError.invalidToken("The access token's user is locked or no longer exists.")
        }
        return JSONResponse.make(ScopeClaims.userinfo(for: user, scopes: record.scopes))
    }
}
