import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// Names and attributes of Gatehouse's cookies.
///
/// On an https issuer cookies carry `Secure` and the `__Host-` prefix (host-only, path `/`, never set
/// by a subdomain). On a plain-http loopback issuer browsers would drop such cookies, so the prefix and
/// `Secure` are left off there. Always `HttpOnly` and `SameSite=Lax`.
struct CookieSettings: Sendable {
    let secure: Bool

    var sessionName: String { secure ? "__Host-gatehouse_session" : "gatehouse_session" }
    /// Binds a pending sign-in to the browser that started it, and doubles as its CSRF token.
    var loginName: String { secure ? "__Host-gatehouse_login" : "gatehouse_login" }
    /// Same binding for the sign-out confirmation form.
    var logoutName: String { secure ? "__Host-gatehouse_logout" : "gatehouse_logout" }
    var demoName: String { secure ? "__Host-gatehouse_demo" : "gatehouse_demo" }
    /// Marks a browser that signed in to an account before (``DeviceCookie``).
    var deviceName: String { secure ? "__Host-gatehouse_device" : "gatehouse_device" }
    /// A year: a browser used at least that often stays known.
    static let deviceCookieLifetime: Int64 = 365 * 86_400

    func setCookie(_ name: String, _ value: String, maxAge: Int64) -> HTTPField {
        var attributes = "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
        if secure { attributes += "; Secure" }
        return HTTPField(name: .setCookie, value: attributes)
    }

    func clearCookie(_ name: String) -> HTTPField {
        setCookie(name, "", maxAge: 0)
    }

    func value(_ name: String, in request: Request) -> String? {
        guard let value = request.cookies[name]?.value, !value.isEmpty else { return nil }
        return value
    }

    /// Whether a posted `form` carries the secret the browser's cookie `name` holds (CSRF): a forged cross-site form
    /// has neither the page's token nor a way to read the cookie.
    func formTokenMatches(_ name: String, _ form: FormParameters, in request: Request) -> Bool {
        guard let cookie = value(name, in: request), let token = form["csrf_token"] else { return false }
        return ConstantTime.equals(cookie, token)
    }

    /// The CSRF token of the forms a signed-in page (`purpose`: the account page, the console) writes for the session
    /// whose cookie `request` carries: derived from the session's own secret, so it is bound to that session, and a
    /// cookie planted from elsewhere (a sibling host, on an http issuer) pairs with no token the planter knows.
    func sessionFormToken(_ purpose: SessionFormPurpose, in request: Request) -> String? {
        guard let session = value(sessionName, in: request) else { return nil }
        let key = SymmetricKey(data: Data(session.utf8))
        return Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(purpose.rawValue.utf8), using: key)))
    }

    /// Whether a posted `form` carries the token ``sessionFormToken(_:in:)`` writes for `purpose` and this session.
    func sessionFormTokenMatches(_ purpose: SessionFormPurpose, _ form: FormParameters, in request: Request) -> Bool {
        guard let expected = sessionFormToken(purpose, in: request), let token = form["csrf_token"] else { return false }
        return ConstantTime.equals(expected, token)
    }

    /// A redirect to the hosted page of the flow `start` makes, bound to this browser by a secret in the sign-in
    /// cookie (its own, when it has one), which lives `lifetime` seconds; a 303 after a POST when `afterPost`.
    func hostedFlow(
        for request: Request, lifetime: Int64, afterPost: Bool = false, start: (_ binding: String) async throws -> String
    ) async throws -> Response {
        let binding = value(loginName, in: request) ?? SecureRandom.token()
        var response = Redirect.to("/login?flow=\(try await start(binding))", afterPost: afterPost)
        response.headers.append(setCookie(loginName, binding, maxAge: lifetime))
        return response
    }
}
