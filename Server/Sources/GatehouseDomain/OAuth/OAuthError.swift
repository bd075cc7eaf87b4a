import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Logging

/// An OAuth 2.0 error answered as an RFC 6749 §5.2 JSON body with the matching status (and `WWW-Authenticate` where
/// RFC 6749 and RFC 6750 ask for one). Thrown from any API route; ``OAuthErrorMiddleware`` or the router renders it.
package struct OAuthError: Error, Sendable {
    /// Every error code the API answers with: those of RFC 6749, RFC 6750 and OpenID Connect, then Gatehouse's own.
    package enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case unsupportedResponseType = "unsupported_response_type"
        case invalidScope = "invalid_scope"
        case invalidToken = "invalid_token"
        case insufficientScope = "insufficient_scope"
        /// The `resource` is unknown, not allowed to the client, or was not named at authorization (RFC 8707 §2).
        case invalidTarget = "invalid_target"
        // Dynamic client registration (RFC 7591 §3.2.2).
        case invalidRedirectURI = "invalid_redirect_uri"
        case invalidClientMetadata = "invalid_client_metadata"
        /// The sign-in behind the access token is older than the resource accepts (RFC 9470): sign in again, then retry.
        case insufficientUserAuthentication = "insufficient_user_authentication"
        case requestNotSupported = "request_not_supported"
        /// The request object is unsigned, signed by a key the client does not have, or says what it may not (RFC 9101 §6.3).
        case invalidRequestObject = "invalid_request_object"
        case requestURINotSupported = "request_uri_not_supported"
        case serverError = "server_error"
        /// No route answers the request's path.
        case notFound = "not_found"
        /// The database could not be reached in time (RFC 6749 §4.1.2.1's code): retry after `Retry-After`.
        case temporarilyUnavailable = "temporarily_unavailable"
        // The device authorization grant (RFC 8628 §3.5).
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case accessDenied = "access_denied"
        case expiredToken = "expired_token"
        // DPoP (RFC 9449 §5, §8).
        case invalidDPoPProof = "invalid_dpop_proof"
        case useDPoPNonce = "use_dpop_nonce"
        // Codes, PINs and the authenticator app protocol.
        case invalidCode = "invalid_code"
        case expiredCode = "expired_code"
        case tooManyAttempts = "too_many_attempts"
        case resendTooSoon = "resend_too_soon"
        case tooManyRegistrations = "too_many_registrations"
        case registrationExpired = "registration_expired"
        case invalidState = "invalid_state"
        case invalidDevice = "invalid_device"
        case identityBlocked = "identity_blocked"
        case wrongPIN = "wrong_pin"
        /// A pushed sign-in answered with another number than the browser shows: it is denied.
        case wrongNumber = "wrong_number"
        case sessionExpired = "session_expired"
        case accountLocked = "account_locked"
        case appNotAllowed = "app_not_allowed"
        case appVersionUnsupported = "app_version_unsupported"

        /// The status the code is answered with.
        package var status: HTTPResponse.Status {
            switch self {
            case .invalidClient, .invalidToken, .invalidDevice, .wrongPIN, .insufficientUserAuthentication: .unauthorized
            case .insufficientScope, .accountLocked, .identityBlocked, .wrongNumber: .forbidden
            case .tooManyAttempts, .resendTooSoon, .tooManyRegistrations: .tooManyRequests
            case .expiredCode, .registrationExpired, .sessionExpired: .gone
            case .invalidState: .conflict
            case .notFound: .notFound
            case .temporarilyUnavailable: .serviceUnavailable
            case .appNotAllowed: .notAcceptable
            case .appVersionUnsupported: .preconditionFailed
            case .serverError: .internalServerError
            case .invalidRequest, .invalidGrant, .unauthorizedClient, .unsupportedGrantType, .unsupportedResponseType, .invalidScope, .invalidTarget,
                .invalidRedirectURI, .invalidClientMetadata,
                .requestNotSupported, .requestURINotSupported, .invalidRequestObject, .invalidCode, .authorizationPending, .slowDown, .accessDenied,
                .expiredToken,
                .invalidDPoPProof, .useDPoPNonce:
                .badRequest
            }
        }
    }

    package var code: Code
    package var description: String
    package var status: HTTPResponse.Status
    /// After a wrong PIN or code: the wrong ones still allowed.
    package var attemptsRemaining: Int?
    /// A nonce for the client's next DPoP proof, sent as `DPoP-Nonce` (RFC 9449 §8).
    package var dpopNonce: String?
    /// Seconds to wait before trying again, sent as `Retry-After`.
    package var retryAfter: Int?
    /// On a resource request made with DPoP, the challenge names the DPoP scheme and its algorithms (RFC 9449 §7.1)
    /// instead of Bearer, and a 401 answers every refused proof or token.
    package var dpopChallenge = false
    /// With `insufficient_scope`: the scope the resource needs, named in the challenge (RFC 6750 §3); `openid` when unset.
    package var requiredScope: String?
    /// With `insufficient_user_authentication`: the oldest sign-in, in seconds, the resource accepts (RFC 9470 `max_age`).
    package var maxAge: Int64?
    /// With `insufficient_user_authentication`: the authentication contexts the resource accepts (RFC 9470 `acr_values`).
    package var acrValues: [String]?

    /// An error with the code's status, unless `status` says otherwise (a malformed body's 413 or 415).
    package init(_ code: Code, _ description: String, status: HTTPResponse.Status? = nil, attemptsRemaining: Int? = nil) {
        self.code = code
        self.description = description
        self.status = status ?? code.status
        self.attemptsRemaining = attemptsRemaining
    }

    package static func invalidRequest(_ description: String) -> OAuthError { .init(.invalidRequest, description) }
    package static func invalidGrant(_ description: String) -> OAuthError { .init(.invalidGrant, description) }
    package static func invalidScope(_ description: String) -> OAuthError { .init(.invalidScope, description) }
    package static func unauthorizedClient(_ description: String) -> OAuthError { .init(.unauthorizedClient, description) }
    package static func unsupportedGrantType(_ description: String) -> OAuthError { .init(.unsupportedGrantType, description) }
    /// Client authentication failed: 401 (RFC 6749 §5.2).
    package static func invalidClient(_ description: String) -> OAuthError { .init(.invalidClient, description) }
    package static func invalidToken(_ description: String) -> OAuthError { .init(.invalidToken, description) }

    /// The answer to work the database could not take (``DatabaseError/unavailable(waited:)``, its caller gone, or its
    /// disk full, which readiness reports too): 503 with `Retry-After`, so a client retries shortly instead of waiting
    /// or giving up; `nil` for other errors.
    package static func unavailable(_ error: any Error) -> OAuthError? {
        if DatabaseFailure.isFull(error) {
            var full = OAuthError(.temporarilyUnavailable, "The server cannot store anything right now (its disk is full); try again later.")
            full.retryAfter = 30
            return full
        }
        guard let error = error as? DatabaseError, error.isUnavailable || error.isCallerGone else { return nil }
        var unavailable = OAuthError(.temporarilyUnavailable, error.isCallerGone ? "The request was abandoned." : error.description)
        unavailable.retryAfter = 2
        return unavailable
    }
}
