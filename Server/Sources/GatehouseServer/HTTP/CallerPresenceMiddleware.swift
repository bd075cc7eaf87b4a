import Hummingbird

/// Tells the database, for the length of each request, how to see that its client has gone (``CallerPresence``): work
/// for a closed connection is rolled back instead of committed for no one.
struct CallerPresenceMiddleware: RouterMiddleware {
    typealias Context = GatehouseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await CallerPresence.$isGone.withValue(context.connectionClosed) { try await next(request, context) }
    }
}
