import Foundation

/// Why a request was refused, as the API answers it: a status, an RFC 6750 error code, and the
/// `WWW-Authenticate` challenge that tells the client where to get a token (``ResourceServer/challenge(for:)``).
public struct ResourceAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The RFC 6750 and RFC 9449 error codes.
    public enum Code: String, Sendable {
        /// The request is malformed (two tokens, an `Authorization` header of another scheme).
        case invalidRequest = "invalid_request"
        /// The token is missing its signature, expired, revoked, for another API, or bound to a key not proved.
        case invalidToken = "invalid_token"
        /// The token lacks a scope the request needs: 403.
        case insufficientScope = "insufficient_scope"
        /// The DPoP proof is missing or wrong (RFC 9449 §7.1).
        case invalidDPoPProof = "invalid_dpop_proof"
        /// The issuer could not be reached to check the token: 503, try again.
        case temporarilyUnavailable = "temporarily_unavailable"
    }

    /// The error code; `nil` when no token was sent at all (RFC 6750 §3.1: the challenge then carries no error).
    public var code: Code?
    /// What went wrong, in words for the client's developer.
    public var description: String
    /// The scopes the request needs, for `insufficient_scope`.
    public var requiredScopes: [String]
    /// Whether the challenge names the DPoP scheme (the token was sent with it, or the API accepts only bound tokens).
    public var dpop: Bool

    /// An error with `code` and `description`.
    public init(_ code: Code?, _ description: String, requiredScopes: [String] = [], dpop: Bool = false) {
        self.code = code
        self.description = description
        self.requiredScopes = requiredScopes
        self.dpop = dpop
    }

    /// The HTTP status to answer with: 401, 403 for `insufficient_scope`, 400 for `invalid_request`, 503 when the
    /// issuer cannot be reached.
    public var status: Int {
        switch code {
        case .insufficientScope: 403
        case .invalidRequest: 400
        case .temporarilyUnavailable: 503
        case .invalidToken, .invalidDPoPProof, nil: 401
        }
    }

    /// The JSON body to answer with: `error` and `error_description` (empty when no token was sent).
    public var body: Data {
        guard let code else { return Data("{}".utf8) }
        let object = ["error": code.rawValue, "error_description": description]
        return (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data("{}".utf8)
    }
}
