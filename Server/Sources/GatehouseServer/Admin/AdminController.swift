import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Logging

/// The admin REST API under `/admin/v1` (described by `/openapi/admin.json`): users, clients, signing keys and the
/// audit trail, for automation. Every route needs a bearer token (``AdminPrincipal``); reading needs
/// `gatehouse:admin:read`, changing `gatehouse:admin`. Every change is audited with the caller as actor, in the
/// transaction of the change. Errors are RFC 9457 problem details.
struct AdminController: Sendable {
    let users: UserStore
    let clients: ClientStore
    let audit: AuditLog
    /// Where a change and its audit event commit together.
    let database: any Database
    /// Personal admin tokens.
    let adminTokens: AdminTokenStore
    /// Access tokens of clients acting for themselves with an admin scope.
    let tokens: TokenStore
    /// Checks the proofs of DPoP-bound admin tokens.
    let proofs: DPoPProofCheck
    let rateLimiter: AdminRateLimiter
    /// This node's signing keys, loaded again at once after a rotation through the API (other nodes within half a minute).
    let keys: SigningKeyRing
    /// What the admin operations need of the configuration: password policy, lifetimes, the secret.
    let settings: AdminSettings
    /// The reverse proxies whose word on the client's address is believed.
    let proxies: TrustedProxies
    let clock: UnixClock
    let logger: Logger

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get("/openapi/admin.json") { _, _ in
            var response = Response(status: .ok, body: .init(byteBuffer: .init(string: PackageResources.contents("admin-openapi.json"))))
            response.headers[.contentType] = "application/json"
            return response
        }
        let api = router.group("/admin/v1").add(middleware: AdminProblemMiddleware(logger: logger))
        // Users.
        api.get("/users") { request, context in try await read(request, context) { try await listUsers(request) } }
        api.post("/users") { request, context in try await write(request, context) { try await createUser(request, actor: $0) } }
        api.get("/users/:id") { request, context in try await read(request, context) { try await showUser(try context.parameters.require("id")) } }
        api.patch("/users/:id") { request, context in
            try await write(request, context) { try await updateUser(try context.parameters.require("id"), request, actor: $0) }
        }
        api.delete("/users/:id") { request, context in
            try await write(request, context) { try await deleteUser(try context.parameters.require("id"), actor: $0) }
        }
        for (action, locked) in [("lock", true), ("unlock", false)] {
            api.post("/users/:id/\(action)") { request, context in
                try await write(request, context) { try await setLocked(try context.parameters.require("id"), locked, actor: $0) }
            }
        }
        api.post("/users/:id/require-password-change") { request, context in
            try await write(request, context) { try await requirePasswordChange(try context.parameters.require("id"), actor: $0) }
        }
        api.get("/users/:id/identities") { request, context in
            try await read(request, context) {
                JSONResponse.make(AdminPage(items: try await operations().identities(of: try context.parameters.require("id"))))
            }
        }
        // Clients.
        api.get("/clients") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().clients())) }
        }
        api.post("/clients") { request, context in try await write(request, context) { try await createClient(request, actor: $0) } }
        api.get("/clients/:id") { request, context in
            try await read(request, context) {
                let id = try context.parameters.require("id")
                return clientResponse(AdminClient(try await operations().registeredClient(id)))
            }
        }
        api.patch("/clients/:id") { request, context in
            try await write(request, context) { try await updateClient(try context.parameters.require("id"), request, actor: $0) }
        }
        api.delete("/clients/:id") { request, context in
            try await write(request, context) { try await deleteClient(try context.parameters.require("id"), actor: $0) }
        }
        addResourceRoutes(to: api)
        addRegistrationTokenRoutes(to: api)
        // Signing keys.
        api.get("/keys") { request, context in
            try await read(request, context) { JSONResponse.make(AdminPage(items: try await operations().signingKeys())) }
        }
        api.post("/keys/rotate") { request, context in try await write(request, context) { try await rotateKeys(actor: $0) } }
        api.delete("/keys/:kid") { request, context in
            try await write(request, context) { actor in
                try await operations(actor).withdrawSigningKey(try context.parameters.require("kid"))
                try await keys.reloadNow()
                return Response(status: .noContent)
            }
        }
        // The audit trail.
        api.get("/events") { request, context in try await read(request, context) { try await events(request) } }
        addAccountRoutes(to: api)
    }

    // MARK: Authorization

    private func principal(_ request: Request, _ context: some RequestContext) async throws -> AdminPrincipal {
        let source = ClientAddress(of: request, context: context, trusting: proxies)
        do {
            let principal = try await AdminPrincipal.of(request, adminTokens: adminTokens, tokens: tokens, proofs: proofs)
            try await rateLimiter.admit(principal.actor)
            return principal
        } catch let problem as AdminProblem where problem.status == .unauthorized {
            // Guessing tokens is slowed per client address.
            try await rateLimiter.admit("unauthorized:" + source.subject)
            throw problem
        }
    }

    func read(_ request: Request, _ context: some RequestContext, _ body: () async throws -> Response) async throws -> Response {
        _ = try await principal(request, context)
        return try await body()
    }

    func write(_ request: Request, _ context: some RequestContext, _ body: (String) async throws -> Response) async throws -> Response {
        let principal = try await principal(request, context)
        guard principal.canWrite else { throw AdminProblem.forbiddenScope }
        var audit = AuditContext.current
        audit.actor = principal.actor
        return try await AuditContext.$current.withValue(audit) { try await body(principal.actor) }
    }

    // MARK: Users

    func user(_ id: String) async throws -> User {
        guard let user = try await users.find(id: id) else { throw AdminProblem.notFound("There is no user with the id \(id).") }
        return user
    }

    private func userResponse(_ user: AdminUser, status: HTTPResponse.Status = .ok) -> Response {
        var response = JSONResponse.make(user, status: status)
        response.headers[.eTag] = AdminETag.of(user)
        return response
    }

    private func listUsers(_ request: Request) async throws -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        let limit = try Self.limit(query["limit"])
        let locked: Bool? =
            switch query["status"] {
            case nil: nil
            case "locked": true
            case "active": false
            case let other?: throw AdminProblem.badRequest("status must be active or locked, not \(other).")
            }
        let users = try await self.users.search(text: query["q"], locked: locked, after: query["cursor"], limit: limit + 1)
        let page = Array(users.prefix(limit))
        return JSONResponse.make(AdminPage(items: page.map(AdminUser.init), nextCursor: users.count > limit ? page.last?.username : nil))
    }

    private func showUser(_ id: String) async throws -> Response {
        userResponse(AdminUser(try await user(id)))
    }

    private func createUser(_ request: Request, actor: String) async throws -> Response {
        let body = try await JSONRequest.decode(AdminNewUser.self, from: request)
        let created = try await operations(actor).createUser(
            NewAccount(
                username: body.username, email: body.email, emailVerified: body.emailVerified ?? false, name: body.name, givenName: body.givenName,
                familyName: body.familyName, password: body.password, locale: body.locale))
        var response = userResponse(created, status: .created)
        response.headers[.location] = "/admin/v1/users/\(created.id)"
        return response
    }

    private func updateUser(_ id: String, _ request: Request, actor: String) async throws -> Response {
        guard let expected = request.headers[.ifMatch] else { throw AdminProblem.preconditionRequired }
        let change = try await JSONRequest.decode(AdminUserChange.self, from: request)
        return userResponse(try await operations(actor).updateUser(id, change, ifMatch: expected))
    }

    private func deleteUser(_ id: String, actor: String) async throws -> Response {
        try await operations(actor).deleteUser(id: id)
        return Response(status: .noContent)
    }

    private func setLocked(_ id: String, _ locked: Bool, actor: String) async throws -> Response {
        try await operations(actor).setLocked(userID: id, locked)
        return userResponse(AdminUser(try await self.user(id)))
    }

    private func requirePasswordChange(_ id: String, actor: String) async throws -> Response {
        try await operations(actor).requirePasswordChange(userID: id)
        return Response(status: .noContent)
    }

    // MARK: Clients

    /// The admin operations on the server's database, on behalf of `actor`.
    func operations(_ actor: String? = nil) -> DatabaseAdminOperations {
        DatabaseAdminOperations(database: database, clock: clock, settings: settings, actor: actor)
    }

    private func createClient(_ request: Request, actor: String) async throws -> Response {
        let body = try await JSONRequest.decode(AdminNewClient.self, from: request)
        let isPublic: Bool = body.isPublic ?? (body.authenticationMethod == ClientAuthenticationMethod.none)
        let created = try await operations(actor).createClient(
            ClientRegistration(
                id: body.id, name: body.name, redirectURIs: body.redirectURIs, postLogoutRedirectURIs: body.postLogoutRedirectURIs ?? [],
                scopes: body.scopes, isPublic: isPublic,
                idTokenAlgorithm: body.idTokenAlgorithm ?? "RS256", deviceGrant: body.deviceGrant ?? false, requireDPoP: body.requireDPoP ?? false,
                thirdParty: body.thirdParty ?? false, logoURI: body.logoURI, homepage: body.homepage, tokenExchange: body.tokenExchange,
                authenticationMethod: body.authenticationMethod, jwksURI: body.jwksURI, jwks: body.jwks,
                backchannelLogoutURI: body.backchannelLogoutURI, frontchannelLogoutURI: body.frontchannelLogoutURI
            ).requiring(signed: body.requireSignedRequestObject ?? false, pushed: body.requirePushedAuthorizationRequests ?? false, profile: body.profile))
        struct Created: Encodable {
            var client: AdminClient
            var clientSecret: String?
            enum CodingKeys: String, CodingKey {
                case client
                case clientSecret = "client_secret"
            }
        }
        var response = JSONResponse.make(Created(client: created.client, clientSecret: created.generatedSecret), status: .created)
        response.headers[.location] = "/admin/v1/clients/\(created.client.id)"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private func clientResponse(_ client: AdminClient) -> Response {
        var response = JSONResponse.make(client)
        response.headers[.eTag] = AdminETag.of(client)
        return response
    }

    private func updateClient(_ id: String, _ request: Request, actor: String) async throws -> Response {
        guard let expected = request.headers[.ifMatch] else { throw AdminProblem.preconditionRequired }
        let change = try await JSONRequest.decode(AdminClientChange.self, from: request)
        return clientResponse(try await operations(actor).updateClient(id, change, ifMatch: expected))
    }

    private func deleteClient(_ id: String, actor: String) async throws -> Response {
        try await operations(actor).deleteClient(id)
        return Response(status: .noContent)
    }

    // MARK: Keys and events

    private func rotateKeys(actor: String) async throws -> Response {
        let rotated = try await operations(actor).rotateSigningKeys()
        try await keys.reloadNow()
        return JSONResponse.make(AdminPage(items: rotated))
    }

    private func events(_ request: Request) async throws -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        let limit = try Self.limit(query["limit"])
        var types: [AuditEventType]?
        if let type = query["type"] {
            guard let known = AuditEventType(rawValue: type) else { throw AdminProblem.badRequest("There is no event type \(type).") }
            types = [known]
        }
        func time(_ key: String) throws -> Int64? {
            guard let text = query[key] else { return nil }
            guard let value = Int64(text), value >= 0 else { throw AdminProblem.badRequest("\(key) must be Unix seconds.") }
            return value
        }
        let filter = AuditLog.Filter(
            types: types, userID: query["user_id"], clientID: query["client_id"], since: try time("since"), until: try time("until"), after: query["cursor"])
        let events = try await audit.events(filter, limit: limit + 1)
        let page = Array(events.prefix(limit))
        return JSONResponse.make(AdminPage(items: page, nextCursor: events.count > limit ? page.last?.id : nil))
    }

    /// A page size: 1 to 500, 50 when not given.
    static func limit(_ text: String?) throws -> Int {
        guard let text else { return 50 }
        guard let limit = Int(text), (1...500).contains(limit) else { throw AdminProblem.badRequest("limit must be 1 to 500.") }
        return limit
    }
}
