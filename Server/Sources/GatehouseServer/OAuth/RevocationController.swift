import GatehouseDomain
import HTTPTypes
import Hummingbird

/// Token revocation (RFC 7009). Answers 200 for unknown tokens too, so it reveals nothing.
struct RevocationController: Sendable {
    let authenticator: ClientAuthenticator
    let tokens: TokenStore

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post("/revoke") { request, _ in try await revoke(request) }
    }

    func revoke(_ request: Request) async throws -> Response {
        let parameters = try await FormParameters.body(of: request)
        let client = try await authenticator.authenticate(request, parameters: parameters, path: "/revoke")
        guard let token = parameters["token"] else { throw OAuthError.invalidRequest("token is missing.") }
        try await tokens.revoke(token, clientID: client.id)
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }
}
