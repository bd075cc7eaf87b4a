import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The admin console (`/admin`): server-rendered pages for the people who run Gatehouse (the overview, users, clients,
/// resources, signing keys, identity providers, the audit trail and the development outbox), in the hosted pages' look
/// and working without JavaScript. People sign in to it through Gatehouse itself with a second factor (set up on the way
/// when they have none) and must hold a role (``AdminRole``, given with `gatehouse admins add`, by an admin here, or
/// through the admin API): a viewer sees, an operator also changes, an admin also gives roles. Every change is the
/// admin API's operation (``DatabaseAdminOperations``), audited with `user:ID` as the actor; every form carries a token
/// bound to the browser by a cookie (CSRF); pages are not cached.
struct AdminConsole: Sendable {
    let users: UserStore
    let sessions: BrowserSessionStore
    let roles: AdminRoleStore
    let audit: AuditLog
    /// The sign-in that comes back to the console.
    let loginFlow: LoginFlow
    /// The admin operations, on behalf of an actor (`user:ID`); ``operations(_:)`` holds them to the person's role.
    let makeOperations: @Sendable (_ actor: String) -> DatabaseAdminOperations
    /// This node's signing keys, read again at once after a rotation (other nodes read them within their interval).
    let keys: SigningKeyRing
    /// The other identity providers people sign in with, checked on their page; the server's issuer, which their
    /// redirect URI is under.
    let providers: [IdentityProvider]
    let issuer: String
    /// The courier's queue, whose backlog the overview shows.
    let courierQueue: CourierQueue
    /// Whether a channel delivers to the development outbox: the console then shows it.
    let showsOutbox: Bool
    let cookies: CookieSettings
    /// Seconds the sign-in's binding cookie lives (`token_lifetimes.authorization_request`).
    let flowLifetime: Int64
    let clock: UnixClock

    static let path = "/admin"
    /// The client the console signs in as: not registered, so it asks no consent.
    static let clientID = "gatehouse-console"

    func addRoutes(to router: Router<some RequestContext>) {
        let pages: [(String, @Sendable (Request, Operator) async throws -> Response)] = [
            ("", { try await overview($1, notice: Self.notice(in: $0)) }),
            ("/users", { try await usersPage(FormParameters(encoded: $0.uri.query ?? ""), $1) }),
            ("/clients", { try await clientsPage($1) }),
            ("/resources", { try await resourcesPage($1) }),
            ("/keys", { try await keysPage($1) }),
            ("/providers", { try await providersPage($0, $1) }),
            ("/events", { try await eventsPage($0, $1) }),
            ("/outbox", { try await outboxPage($1) }),
        ]
        for (path, body) in pages {
            router.get(RouterPath(stringLiteral: Self.path + path)) { request, _ in try await page(request) { try await body(request, $0) } }
        }
        let forms: [(String, @Sendable (Operator, FormParameters) async throws -> Response)] = [
            ("/users", { try await createUser($1, by: $0) }),
            ("/clients", { try await createClient($1, by: $0) }),
            ("/resources", { try await createResource($1, by: $0) }),
            ("/keys", { try await changeKeys($1, by: $0) }),
        ]
        for (path, body) in forms {
            router.post(RouterPath(stringLiteral: Self.path + path)) { request, _ in try await submitted(request) { try await body($0, $1) } }
        }
        // A role is the one change an operator cannot make: only an admin gives and takes them.
        router.post(RouterPath(stringLiteral: Self.path + "/roles")) { request, _ in
            try await submitted(request, needs: .admin) { try await changeRoles($1, by: $0) }
        }
        let items:
            [(String, @Sendable (Request, String, Operator) async throws -> Response, @Sendable (String, Operator, FormParameters) async throws -> Response)] =
                [
                    ("/users/:id", { try await userPage($1, $2, request: $0) }, { try await changeUser($0, form: $2, by: $1) }),
                    ("/clients/:id", { try await clientPage($1, $2, notice: Self.notice(in: $0)) }, { try await changeClient($0, form: $2, by: $1) }),
                    ("/resources/:id", { try await resourcePage($1, $2, notice: Self.notice(in: $0)) }, { try await changeResource($0, form: $2, by: $1) }),
                ]
        for (path, show, change) in items {
            router.get(RouterPath(stringLiteral: Self.path + path)) { request, context in
                let id = context.parameters.get("id") ?? ""
                return try await page(request) { try await show(request, id, $0) }
            }
            router.post(RouterPath(stringLiteral: Self.path + path)) { request, context in
                let id = context.parameters.get("id") ?? ""
                return try await submitted(request) { try await change(id, $0, $1) }
            }
        }
    }

    /// The person using the console: signed in with a second factor, holding a role.
    struct Operator {
        var user: User
        var role: AdminRole
        /// The form token this browser's cookie holds.
        var csrfToken: String
        var actor: String { "user:\(user.id)" }
    }

    /// Whether a browser may use the console.
    enum Access {
        case allowed(Operator)
        /// No session, or one without a second factor (`user`'s): sign in (again) with one.
        case signIn(User?)
        /// Signed in well, but holding no role.
        case noRole
    }

    /// Who this browser is in the console, or why it is not anyone there.
    func access(_ request: Request) async throws -> Access {
        guard let id = cookies.value(cookies.sessionName, in: request), let session = try await sessions.find(id: id),
            let user = try await users.find(id: session.userID), !user.isLocked
        else { return .signIn(nil) }
        guard session.methods.contains("mfa") else { return .signIn(user) }
        guard let role = try await roles.role(of: user.id) else { return .noRole }
        return .allowed(Operator(user: user, role: role, csrfToken: cookies.sessionFormToken(.console, in: request) ?? ""))
    }

    /// A console page for whoever may see it; else the sign-in, or a refusal.
    func page(_ request: Request, _ body: (Operator) async throws -> Response) async throws -> Response {
        switch try await access(request) {
        case .signIn(let user): return try await signIn(request, as: user)
        case .noRole: return Self.noRole
        case .allowed(let person): return try await body(person)
        }
    }

    static let noRole = PageRenderer.error(
        title: "Not an administrator", message: "Your account holds no role in the admin console. An administrator gives one with gatehouse admins add.",
        status: .forbidden)

    /// A sign-in on the hosted pages that requires a second factor and comes back to `request`'s page: again for `user`
    /// when their session has none.
    func signIn(_ request: Request, as user: User?) async throws -> Response {
        var authorization = AuthorizationRequest(
            clientID: Self.clientID, redirectURI: Self.path, scopes: ["openid"], prompts: user == nil ? [] : ["login"], loginHint: user?.username,
            acrValues: [LoginFlow.multiFactorACR])
        let path = request.uri.path
        authorization.returnPath = path.hasPrefix(Self.path) && request.method == .get ? path : Self.path
        return try await cookies.hostedFlow(for: request, lifetime: flowLifetime, afterPost: request.method == .post) { binding in
            try await loginFlow.begin(authorization, kind: .login, clientName: "the admin console", owner: .browser(binding: binding)).id
        }
    }

    /// The admin operations on behalf of `person`, held to what their role allows.
    func operations(_ person: Operator) -> DatabaseAdminOperations {
        makeOperations(person.actor).acting(as: .console(person.role))
    }

    /// The console's pages share their frame: where the person is, and who they are.
    func values(_ person: Operator, section: String) -> [String: Any] {
        [
            "csrfToken": person.csrfToken, "username": person.user.username, "role": person.role.rawValue, "canChange": person.role.canChange,
            "isAdmin": person.role == .admin, "showsOutbox": showsOutbox, "in\(section)": true,
        ]
    }
}
