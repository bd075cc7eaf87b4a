import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Logging

/// An OAuth 2.0 error answered as an RFC 6749 §5.2 JSON body with the matching status.
struct OAuthError: Error, Sendable {
    var code: String
    var description: String
    var status: HTTPResponse.Status
    /// After a wrong PIN or code: the wrong ones still allowed.
    var attemptsRemaining: Int?

    init(_ code: String, _ description: String, status: HTTPResponse.Status = .badRequest, attemptsRemaining: Int? = nil) {
        self.code = code
        self.description = description
        self.status = status
        self.attemptsRemaining = attemptsRemaining
    }

    static func invalidRequest(_ description: String) -> OAuthError { .init("invalid_request", description) }
    static func invalidGrant(_ description: String) -> OAuthError { .init("invalid_grant", description) }
    static func invalidScope(_ description: String) -> OAuthError { .init("invalid_scope", description) }
    static func unauthorizedClient(_ description: String) -> OAuthError { .init("unauthorized_client", description) }
    static func unsupportedGrantType(_ description: String) -> OAuthError { .init("unsupported_grant_type", description) }
    /// Client authentication failed: 401 (RFC 6749 §5.2).
    static func invalidClient(_ description: String) -> OAuthError { .init("invalid_client", description, status: .unauthorized) }
    static func invalidToken(_ description: String) -> OAuthError { .init("invalid_token", description, status: .unauthorized) }

    func response() -> Response {
        var response = JSONResponse.make(OAuthErrorResponse(error: code, errorDescription: description, attemptsRemaining: attemptsRemaining), status: status)
        if code == "invalid_client" {
            response.headers[.wwwAuthenticate] = #"Basic realm="gatehouse""#
        } else if code == "invalid_token" {
            response.headers[.wwwAuthenticate] = #"Bearer error="invalid_token", error_description="\#(description)""#
        }
        return response
    }
}

extension OAuthError {
    /// Runs an OAuth endpoint, turning every failure into an RFC 6749 JSON error; unexpected errors are
    /// logged by type only (their text might carry a secret) and answered as `server_error`.
    static func answering(logger: Logger? = nil, _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let error as OAuthError {
            return error.response()
        } catch let error as HTTPError {
            return OAuthError("invalid_request", error.body ?? "The request could not be read.", status: error.status).response()
        } catch {
            logger?.error("Endpoint failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            return OAuthError("server_error", "The server could not complete the request; try again.", status: .internalServerError).response()
        }
    }
}
