import Foundation
import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The admin console (`/admin`): server-rendered pages for the people who run Gatehouse (the overview, users, clients,
/// signing keys and the audit trail), in the hosted pages' look and working without JavaScript. People sign in to it
/// through Gatehouse itself with a second factor (set up on the way when they have none) and must hold a role
/// (``AdminRole``, given with `gatehouse admins add`): a viewer sees, an operator also changes. Every change is the
/// admin API's operation (``DatabaseAdminOperations``), audited with `user:ID` as the actor; every form carries a token
/// bound to the browser by a cookie (CSRF); pages are not cached.
struct AdminConsole: Sendable {
    let users: UserStore
    let sessions: BrowserSessionStore
    let roles: AdminRoleStore
    let audit: AuditLog
    /// The sign-in that comes back to the console.
    let loginFlow: LoginFlow
    /// The admin operations, on behalf of an actor (`user:ID`).
    let operations: @Sendable (_ actor: String) -> DatabaseAdminOperations
    /// This node's signing keys, read again at once after a rotation (other nodes read them within their interval).
    let keys: SigningKeyRing
    let cookies: CookieSettings
    /// Seconds the sign-in's binding cookie lives (`token_lifetimes.authorization_request`).
    let flowLifetime: Int64
    let clock: UnixClock

    static let path = "/admin"
    /// The client the console signs in as: not registered, so it asks no consent.
    static let clientID = "gatehouse-console"

    func addRoutes(to router: Router<some RequestContext>) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, _ in try await page(request) { try await overview($0) } }
        router.get(RouterPath(stringLiteral: Self.path + "/users")) { request, _ in try await page(request) { try await usersPage(request, $0) } }
        router.get(RouterPath(stringLiteral: Self.path + "/users/:id")) { request, context in
            try await page(request) { try await userPage(context.parameters.get("id") ?? "", $0, request: request) }
        }
        router.post(RouterPath(stringLiteral: Self.path + "/users/:id")) { request, context in
            try await change(request, userID: context.parameters.get("id") ?? "")
        }
        router.get(RouterPath(stringLiteral: Self.path + "/events")) { request, _ in try await page(request) { try await eventsPage(request, $0) } }
        router.get(RouterPath(stringLiteral: Self.path + "/clients")) { request, _ in try await page(request) { try await clientsPage($0) } }
        router.post(RouterPath(stringLiteral: Self.path + "/clients")) { request, _ in try await createClient(request) }
        router.post(RouterPath(stringLiteral: Self.path + "/clients/:id")) { request, context in
            try await changeClient(request, clientID: context.parameters.get("id") ?? "")
        }
        router.get(RouterPath(stringLiteral: Self.path + "/keys")) { request, _ in try await page(request) { try await keysPage($0) } }
        router.post(RouterPath(stringLiteral: Self.path + "/keys")) { request, _ in try await rotateKeys(request) }
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
        let token = cookies.value(cookies.consoleName, in: request) ?? SecureRandom.token()
        return .allowed(Operator(user: user, role: role, csrfToken: token))
    }

    /// A console page for whoever may see it, with the console's form cookie; else the sign-in, or a refusal.
    func page(_ request: Request, _ body: (Operator) async throws -> Response) async throws -> Response {
        switch try await access(request) {
        case .signIn(let user): return try await signIn(request, as: user)
        case .noRole: return Self.noRole
        case .allowed(let person):
            var response = try await body(person)
            response.headers.append(cookies.setCookie(cookies.consoleName, person.csrfToken, maxAge: 3600))
            return response
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

    /// The console's pages share their frame: where the person is, and who they are.
    func values(_ person: Operator, section: String) -> [String: Any] {
        [
            "csrfToken": person.csrfToken, "username": person.user.username, "role": person.role.rawValue, "canChange": person.role.canChange,
            "in\(section)": true,
        ]
    }
}
