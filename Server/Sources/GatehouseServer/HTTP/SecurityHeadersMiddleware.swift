import HTTPTypes
import Hummingbird

/// Adds the headers every response should carry: no framing (clickjacking), no MIME sniffing,
/// no referrer leaking codes or tokens, a strict content security policy, and HSTS on https.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let https: Bool
    /// The origin of the operator's stylesheet (`branding.stylesheet_url`), allowed beside our own.
    var styleOrigin: String? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        // Images may come from https too: identity providers' icons are theirs. No form-action: browsers apply it to the redirect after sign-in, which goes to the client.
        // A page that frames others (front-channel logout) sets its own policy, this one plus `frame-src`.
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = ContentSecurityPolicy.standard }
        if let styleOrigin, let policy = response.headers[.contentSecurityPolicy] {
            response.headers[.contentSecurityPolicy] = policy.replacingOccurrences(of: "style-src 'self'", with: "style-src 'self' \(styleOrigin)")
        }
        if https { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

/// The content security policies of Gatehouse's responses.
enum ContentSecurityPolicy {
    /// Every response's, unless it sets its own: nothing from elsewhere but https images (identity providers' icons).
    static let standard =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'"

    /// The standard policy, with frames from `origins` allowed (the signed-out page's front-channel logout frames).
    static func framing(_ origins: some Sequence<String>) -> String {
        standard + "; frame-src " + Set(origins).sorted().joined(separator: " ")
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let pragma = HTTPField.Name("Pragma")!
}
