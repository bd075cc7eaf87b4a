import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The hosted sign-in page: shows the form for a pending authorization request and checks the password.
struct LoginController: Sendable {
    let server: IdentityServer

    static let expiredMessage = "This sign-in page has expired or was opened in another browser. Go back to the application and start again."

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("/login") { request, _ in try await show(request) }
        router.post("/login") { request, _ in try await submit(request) }
    }

    func show(_ request: Request) async throws -> Response {
        let parameters = FormParameters(encoded: request.uri.query ?? "")
        let binding = server.cookies.value(server.cookies.loginName, in: request)
        guard let id = parameters["request"], let binding,
              let pending = try await server.authorizationRequests.find(id: id, browserBinding: binding)
        else {
            return PageRenderer.error(title: "Sign-in expired", message: Self.expiredMessage)
        }
        let client = try await server.clients.find(id: pending.clientID)
        return LoginPage.render(requestID: id, csrfToken: binding, clientName: client?.name ?? pending.clientID,
                                username: pending.loginHint, error: nil)
    }

    func submit(_ request: Request) async throws -> Response {
        let form: FormParameters
        do {
            form = try await FormParameters.body(of: request)
        } catch {
            return PageRenderer.error(title: "Invalid request", message: "The sign-in form could not be read.")
        }
        // CSRF: the form must carry the same secret as the cookie that binds the request to this browser.
        guard let binding = server.cookies.value(server.cookies.loginName, in: request),
              let token = form["csrf_token"], ConstantTime.equals(token, binding),
              let id = form["request"],
              let pending = try await server.authorizationRequests.find(id: id, browserBinding: binding)
        else {
            return PageRenderer.error(title: "Sign-in expired", message: Self.expiredMessage, status: .forbidden)
        }
        let client = try await server.clients.find(id: pending.clientID)
        let clientName = client?.name ?? pending.clientID
        let username = form["username"] ?? ""
        func again(_ message: String, _ status: HTTPResponse.Status) -> Response {
            LoginPage.render(requestID: id, csrfToken: binding, clientName: clientName, username: username, error: message, status: status)
        }

        switch try await server.authenticator.authenticate(username: username, password: form["password"] ?? "") {
        case .invalidCredentials:
            return again(LoginMessages.invalidCredentials, .unauthorized)
        case .throttled:
            return again(LoginMessages.throttled, .tooManyRequests)
        case .locked:
            return again(LoginMessages.locked, .forbidden)
        case .authenticated(let user):
            guard try await server.authorizationRequests.consume(id: id) else {
                return PageRenderer.error(title: "Sign-in expired", message: Self.expiredMessage)
            }
            let previous = server.cookies.value(server.cookies.sessionName, in: request)
            let started = try await server.sessions.start(userID: user.id, methods: ["pwd"],
                                                          lifetime: server.configuration.tokens.session, replacing: previous)
            server.logger.info("User signed in", metadata: ["user": "\(user.id)", "client": "\(pending.clientID)"])
            var response = try await AuthorizationResponder(server: server).success(
                for: pending, userID: user.id, authTime: started.session.authTime, methods: started.session.methods, afterPost: true
            )
            response.headers.append(server.cookies.setCookie(server.cookies.sessionName, started.id, maxAge: server.configuration.tokens.session))
            return response
        }
    }
}
