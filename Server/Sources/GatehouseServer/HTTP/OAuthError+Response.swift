import GatehouseDomain
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// An OAuth error as the response the API answers with.
extension OAuthError: HTTPResponseError {
    func response() -> Response {
        var response = JSONResponse.make(
            OAuthErrorResponse(error: code.rawValue, errorDescription: description, attemptsRemaining: attemptsRemaining),
            status: status)
        if let dpopNonce { response.headers[.dpopNonce] = dpopNonce }
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        if dpopChallenge {
            if [.invalidToken, .invalidDPoPProof, .useDPoPNonce].contains(code) { response.status = .unauthorized }
            let algorithms = DPoPProofVerifier.algorithms.joined(separator: " ")
            response.headers[.wwwAuthenticate] =
                #"DPoP error="\#(code.rawValue)", error_description="\#(description)"\#(challengeParameters), algs="\#(algorithms)""#
            return response
        }
        switch code {
        case .invalidClient: response.headers[.wwwAuthenticate] = #"Basic realm="gatehouse""#
        case .invalidToken: response.headers[.wwwAuthenticate] = #"Bearer error="invalid_token", error_description="\#(description)""#
        case .insufficientScope: response.headers[.wwwAuthenticate] = #"Bearer error="insufficient_scope", scope="\#(requiredScope ?? "openid")""#
        case .insufficientUserAuthentication:
            response.headers[.wwwAuthenticate] = #"Bearer error="insufficient_user_authentication", error_description="\#(description)"\#(challengeParameters)"#
        default: break
        }
        return response
    }

    /// RFC 9470's `acr_values` and `max_age` challenge parameters, when the error names them.
    private var challengeParameters: String {
        (acrValues.map { #", acr_values="\#($0.joined(separator: " "))""# } ?? "") + (maxAge.map { ", max_age=\($0)" } ?? "")
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        response()
    }
}
