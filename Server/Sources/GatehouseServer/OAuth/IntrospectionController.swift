import GatehouseDomain
import GatehouseProtocol
import Hummingbird

/// Token introspection (RFC 7662) for confidential clients: about tokens issued to themselves, and — for a resource
/// server that authenticates as one of its resource's introspection clients — about access tokens issued for that
/// resource, opaque or JWT alike (a JWT's row says whether it is still active: revoked is revoked).
struct IntrospectionController: Sendable {
    let issuer: String
    let authenticator: ClientAuthenticator
    let resources: ResourceStore
    let tokens: TokenStore
    let users: UserStore

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post("/introspect") { request, _ in try await introspect(request) }
    }

    func introspect(_ request: Request) async throws -> Response {
        let parameters = try await FormParameters.body(of: request)
        let client = try await authenticator.authenticate(request, parameters: parameters, path: "/introspect")
        guard !client.isPublic else {
            throw OAuthError.invalidClient("Introspection requires a confidential client.")
        }
        guard let token = parameters["token"] else { throw OAuthError.invalidRequest("token is missing.") }
        if let access = try await tokens.activeAccessToken(token), try await mayIntrospect(access, client: client) {
            var user: User?
            if let userID = access.userID { user = try await users.find(id: userID) }
            var introspection = IntrospectionResponse(
                active: true, scope: access.scopes.joined(separator: " "), clientID: access.clientID, username: user?.username,
                tokenType: access.jkt == nil ? "Bearer" : "DPoP", expiresAt: Int(access.expiresAt), issuedAt: Int(access.issuedAt),
                subject: access.userID ?? access.clientID, audience: access.audience ?? access.clientID, issuer: issuer)
            introspection.confirmation = access.jkt.map(IntrospectionResponse.Confirmation.init(jkt:))
            introspection.actor = TokenActor.chain(access.actors)
            return JSONResponse.make(introspection)
        }
        if let refresh = try await tokens.activeRefreshToken(token), refresh.grant.clientID == client.id {
            let user = try await users.find(id: refresh.grant.userID)
            return JSONResponse.make(
                IntrospectionResponse(
                    active: true, scope: refresh.grant.scope, clientID: client.id, username: user?.username, tokenType: "refresh_token",
                    expiresAt: Int(refresh.expiresAt), issuedAt: Int(refresh.issuedAt), subject: refresh.grant.userID,
                    audience: client.id, issuer: issuer
                ))
        }
        return JSONResponse.make(IntrospectionResponse.inactive)
    }

    /// Whether `client` may hear about `access`: its own token, or one for a resource it serves.
    private func mayIntrospect(_ access: TokenStore.AccessTokenRecord, client: Client) async throws -> Bool {
        if access.clientID == client.id { return true }
        guard let audience = access.audience else { return false }
        return try await resources.find(id: audience)?.introspectionClients.contains(client.id) == true
    }
}
