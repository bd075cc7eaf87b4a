import HTTPTypes
import Hummingbird

/// Answers methods no route of Gatehouse takes (TRACE, and CONNECT where it reaches the router) with 405 and `Allow`,
/// as RFC 9110 §15.5.6 says, instead of 404: the resource exists, the method is what is wrong. TRACE in particular is
/// never echoed (cross-site tracing).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    static var refused: [HTTPRequest.Method] { [.trace, .connect] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.refused.contains(request.method) else { return try await next(request, context) }
        var response = Response(status: .methodNotAllowed)
        response.headers[.allow] = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
