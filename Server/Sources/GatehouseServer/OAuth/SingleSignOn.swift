import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import Hummingbird

/// Single sign-on: whether the browser's session answers an authorization request without signing in again.
struct SingleSignOn: Sendable {
    let cookies: CookieSettings
    let sessions: BrowserSessionStore
    let users: UserStore
    /// Says whether the request needs a second factor the session lacks.
    let loginFlow: LoginFlow
    let clock: UnixClock

    /// The browser's session if it may be used for this request: not forced away by `prompt=login`,
    /// young enough for `max_age`, and its user still exists and is not locked.
    func usableSession(for authorization: AuthorizationRequest, request: Request) async throws -> BrowserSession? {
        guard !authorization.prompts.contains("login"),
            let id = cookies.value(cookies.sessionName, in: request),
            let session = try await sessions.find(id: id)
        else { return nil }
        // max_age=0 always asks again: whole seconds would otherwise let a sign-in of this same second count as fresh.
        if let maxAge = authorization.maxAge, maxAge == 0 || clock.now() - session.authTime > maxAge { return nil }
        guard let user = try await users.find(id: session.userID), !user.isLocked else { return nil }
        // A session signed in with the password alone does not satisfy a client or request that needs a
        // second factor: the user signs in again, this time with both (step-up).
        if !session.methods.contains("mfa"), try await loginFlow.secondFactorPlan(for: authorization, user: user) != nil {
            return nil
        }
        return session
    }
}
