import GatehouseDomain
import GatehouseFoundation
import Hummingbird
import Logging

/// The catch-all of the API routes: every failure becomes an RFC 6749 JSON error. An ``OAuthError`` answers as
/// itself, an unreadable request (Hummingbird's `HTTPError`: too large, wrong content type) as `invalid_request`
/// with its status, and anything else as `server_error`, logged by type (and a database's own reason, ``DatabaseFailure``) since its
/// text might carry a secret.
struct OAuthErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as OAuthError {
            return error.response()
        } catch let error as HTTPError {
            return OAuthError(.invalidRequest, error.body ?? "The request could not be read.", status: error.status).response()
        } catch {
            if let unavailable = OAuthError.unavailable(error) {
                let why = DatabaseFailure.isFull(error) ? "the database's disk is full" : "the database did not answer in time"
                logger.notice("Endpoint answered 503: \(why)", metadata: DatabaseFailure.metadata(error))
                return unavailable.response()
            }
            logger.error("Endpoint failed", metadata: DatabaseFailure.metadata(error))
            return OAuthError(.serverError, "The server could not complete the request; try again.").response()
        }
    }
}
