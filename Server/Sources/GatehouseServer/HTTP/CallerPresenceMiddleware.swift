import GatehouseFoundation
import Hummingbird
import NIOCore

/// Tells the database, for the length of each request, how to see that its client has gone (``CallerPresence``): work
/// for a closed connection is rolled back instead of committed for no one.
struct CallerPresenceMiddleware: RouterMiddleware {
    typealias Context = GatehouseRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await CallerPresence.$current.withValue(context.caller) { try await next(request, context) }
    }
}

extension CallerPresence {
    /// The caller of a request on `connection`: gone once the connection closes. Only a connection that was open can
    /// close: an in-process test's channel never was.
    convenience init(connection: any Channel) {
        let wasActive = connection.isActive
        self.init { wasActive && !connection.isActive }
    }
}
