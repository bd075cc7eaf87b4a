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
    /// Same binding for the account page's forms.
    var accountName: String { secure ? "__Host-gatehouse_account" : "gatehouse_account" }
    /// Same binding for the admin console's forms.
    var consoleName: String { secure ? "__Host-gatehouse_console" : "gatehouse_console" }
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
}
