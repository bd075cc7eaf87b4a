import Foundation
import GatehouseDomain
import GatehouseFoundation
import HTTPTypes
import Hummingbird
import Logging

/// An admin API error as RFC 9457 problem details (`application/problem+json`): a stable `type`, a `title`, the
/// status, and a `detail` saying what to change.
struct AdminProblem: Error, Sendable, CustomStringConvertible {
    var status: HTTPResponse.Status
    /// The last part of the type URI (`/admin/v1/problems/not-found`).
    var kind: String
    var title: String
    var detail: String
    var headers: HTTPFields = [:]
    /// The problem in the words of the account's owner, where a page of theirs shows it in their language; ``detail``
    /// is what the API answers.
    var message: MessageReference? = nil

    /// The problem as the account's owner reads it on their page: its own words, else its detail quoted.
    var messageForOwner: MessageReference { message ?? MessageReference("account.problem.refused", ["reason": detail]) }

    /// What to change, for whoever reads the error outside HTTP (the command-line tool on a local database).
    var description: String { detail }

    static func badRequest(_ detail: String, message: MessageReference? = nil) -> Self {
        Self(status: .badRequest, kind: "invalid-request", title: "Invalid request", detail: detail, message: message)
    }
    static func notFound(_ detail: String) -> Self { Self(status: .notFound, kind: "not-found", title: "Not found", detail: detail) }
    static func conflict(_ detail: String, message: MessageReference? = nil) -> Self {
        Self(status: .conflict, kind: "conflict", title: "Conflict", detail: detail, message: message)
    }
    /// A contact change lost a race with another change of the same account.
    static let changedMeanwhile = conflict("The account changed meanwhile; try again.", message: MessageReference("account.problem.changed_meanwhile"))
    /// A proven address another account already holds.
    static let addressTaken = conflict("Another account uses that address.", message: MessageReference("account.problem.address_taken"))
    static let unauthorized = Self(
        status: .unauthorized, kind: "unauthorized", title: "Unauthorized",
        detail: "Send a bearer token: a client-credentials access token with the scope gatehouse:admin (or gatehouse:admin:read), or an admin token.",
        headers: [.wwwAuthenticate: #"Bearer realm="gatehouse-admin""#])
    /// A token was sent but is not one this server accepts (unknown, expired, revoked): the challenge says so
    /// (RFC 6750 §3.1), so a client knows to get a new one rather than to add one.
    static let invalidToken = Self(
        status: .unauthorized, kind: "unauthorized", title: "Unauthorized",
        detail: "The bearer token is unknown, expired or revoked; get a new one.",
        headers: [.wwwAuthenticate: #"Bearer realm="gatehouse-admin", error="invalid_token""#])
    static let forbiddenScope = Self(
        status: .forbidden, kind: "insufficient-scope", title: "Forbidden",
        detail: "This token cannot do that: reading needs gatehouse:admin:read or gatehouse:admin, changing needs gatehouse:admin.")
    /// Something only an admin may do, asked by someone with a lesser role.
    static func adminOnly(_ detail: String) -> Self { Self(status: .forbidden, kind: "admin-only", title: "Forbidden", detail: detail) }
    static let preconditionRequired = Self(
        status: .init(code: 428), kind: "precondition-required", title: "Precondition required",
        detail: "Send If-Match with the ETag of the resource as you read it, so that no one else's change is overwritten blindly.")
    static let preconditionFailed = Self(
        status: .preconditionFailed, kind: "precondition-failed", title: "Precondition failed",
        detail: "The resource changed since you read it (its ETag differs); read it again and reapply your change.")
    /// A token presented otherwise than its binding requires (``PresentedAccessToken``): 401 with the challenge of the
    /// scheme it must use, and `nonce`, the DPoP nonce, when nonces are on.
    static func refused(_ refusal: PresentedAccessToken.Refusal, nonce: String?) -> Self {
        let oauth = refusal.oauthError(presentedWithDPoP: false, nonce: nonce)
        var problem = Self(
            status: .unauthorized, kind: oauth.code.rawValue.replacingOccurrences(of: "_", with: "-"), title: "Unauthorized", detail: oauth.description)
        let answer = oauth.response()
        problem.headers[.wwwAuthenticate] = answer.headers[.wwwAuthenticate] ?? unauthorized.headers[.wwwAuthenticate]
        if let nonce = answer.headers[.dpopNonce] { problem.headers[.dpopNonce] = nonce }
        return problem
    }

    static func tooManyRequests(retryAfter: Int) -> Self {
        Self(
            status: .tooManyRequests, kind: "rate-limited", title: "Too many requests", detail: "Slow down; try again in \(retryAfter) seconds.",
            headers: [.retryAfter: "\(retryAfter)"])
    }

    var response: Response {
        struct Body: Encodable {
            var type, title, detail: String
            var status: Int
        }
        let body = Body(type: "/admin/v1/problems/\(kind)", title: title, detail: detail, status: Int(status.code))
        var headers = headers
        headers[.contentType] = "application/problem+json"
        headers[.cacheControl] = "no-store"
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(body)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(bytes: data)))
    }
}

/// Every failure of an admin route as problem details: unreadable input as 400, anything unexpected as 500 (logged by
/// its type only, as its text might carry a secret).
struct AdminProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as AdminProblem {
            return problem.response
        } catch let error as OAuthError {
            return AdminProblem(status: error.status, kind: "invalid-request", title: "Invalid request", detail: error.description).response
        } catch let error as HTTPError {
            return AdminProblem(status: error.status, kind: "invalid-request", title: "Invalid request", detail: error.body ?? "The request could not be read.")
                .response
        } catch is DecodingError {
            return AdminProblem.badRequest("The JSON body does not match the schema in /admin/v1/openapi.json.").response
        } catch let error as ConfigurationError {
            return AdminProblem.badRequest(error.description).response
        } catch  where OAuthError.unavailable(error) != nil {
            let unavailable = OAuthError.unavailable(error)!
            return AdminProblem(
                status: .serviceUnavailable, kind: "unavailable", title: "Service unavailable", detail: unavailable.description,
                headers: [.retryAfter: String(unavailable.retryAfter ?? 2)]
            ).response
        } catch {
            logger.error("Admin endpoint failed", metadata: DatabaseFailure.metadata(error))
            return AdminProblem(status: .internalServerError, kind: "server-error", title: "Server error", detail: "The server could not complete the request.")
                .response
        }
    }
}
