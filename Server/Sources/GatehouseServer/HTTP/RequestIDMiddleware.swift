import GatehouseDomain
import GatehouseFoundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// Gives every request an id, answered in `X-Request-Id` and carried by the audit events it causes, with the
/// client's address and user agent (``AuditContext``). An id sent by a trusted proxy is kept, so one id follows a
/// request through the proxy's logs and ours; anyone else's is replaced.
struct RequestIDMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let peer = context.remoteAddress
        let forwarded = request.headers[.xRequestID].flatMap { id in
            peer.map(proxies.trusts) == true && Self.isAcceptable(id) ? id : nil
        }
        let id = forwarded ?? Self.nextID()
        let audit = AuditContext(peer: peer, headers: request.headers, proxies: proxies, userAgent: request.headers[.userAgent], requestID: id)
        var response: Response
        do {
            response = try await AuditContext.$current.withValue(audit) { try await next(request, context) }
        } catch {
            // Rendered here rather than by the server, so that an unknown route or a page's failure carries the
            // request id and, outside this, the security headers like every other answer.
            response = Self.response(for: error, request: request, context: context)
        }
        response.headers[.xRequestID] = id
        return response
    }

    /// The answer to a request whose handler threw: the error's own response when it has one (an unknown route is
    /// a JSON 404), else a 500 that says nothing of the error, which is logged by type only.
    static func response(for error: any Error, request: Request, context: Context) -> Response {
        if let error = error as? HTTPError, error.status == .notFound, error.body == nil {
            return OAuthError(.notFound, "There is nothing at \(request.uri.path).").response()
        }
        if let error = error as? any HTTPResponseError, let response = try? error.response(from: request, context: context) {
            return response
        }
        if let unavailable = OAuthError.unavailable(error) {
            context.logger.notice("Request answered 503: the database did not answer in time", metadata: DatabaseFailure.metadata(error))
            return unavailable.response()
        }
        context.logger.error("Request failed", metadata: DatabaseFailure.metadata(error))
        return OAuthError(.serverError, "The server could not complete the request; try again.").response()
    }

    static func nextID() -> String { RequestIDs.next() }

    /// A forwarded id is kept when it is short and plain: it goes into logs and events as it is.
    static func isAcceptable(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-Id")!
}

/// Request ids: this process's random prefix and a count, unique without a random draw per request (ids are not secrets).
enum RequestIDs {
    private static let prefix = String(SecureRandom.token().prefix(10))
    private static let counter = NIOLockedValueBox<UInt64>(0)

    static func next() -> String {
        let count = counter.withLockedValue { value in
            value &+= 1
            return value
        }
        return prefix + "-" + String(count, radix: 36)
    }
}
