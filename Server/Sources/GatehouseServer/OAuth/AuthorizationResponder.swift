import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// Ends an authorization request: issues the code and sends the browser back to the client with
/// `code`, `state` and `iss` (RFC 9207), or with an error.
struct AuthorizationResponder: Sendable {
    let codes: AuthorizationCodeStore
    /// Sent as `iss` with every answer.
    let issuer: String
    /// Seconds an authorization code lives (`token_lifetimes.authorization_code`).
    let codeLifetime: Int64

    /// `sessionID`: the public id of the browser session that signed in, for the ID token's `sid` and logout notifications.
    func success(
        for request: AuthorizationRequest, userID: String, authTime: Int64, methods: [String], sessionID: String?, afterPost: Bool
    ) async throws -> Response {
        let code = try await issueCode(for: request, userID: userID, authTime: authTime, methods: methods, sessionID: sessionID)
        let location = Redirect.url(request.redirectURI, adding: [("code", code), ("state", request.state), ("iss", issuer)])
        return Redirect.to(location, afterPost: afterPost)
    }

    /// Issues the authorization code that completes `request` for the user.
    func issueCode(for request: AuthorizationRequest, userID: String, authTime: Int64, methods: [String], sessionID: String? = nil) async throws -> String {
        let grant = Grant(
            id: SecureRandom.token(byteCount: 16), clientID: request.clientID, userID: userID, scopes: request.scopes,
            authTime: authTime, methods: methods, resources: request.resources ?? [], sessionID: sessionID, requestedClaims: request.claims)
        return try await codes.issue(
            for: grant,
            binding: .init(redirectURI: request.redirectURI, nonce: request.nonce, codeChallenge: request.codeChallenge, dpopJKT: request.dpopJKT),
            lifetime: request.profile == .fapi2 ? min(codeLifetime, SecurityProfile.fapi2CodeLifetime) : codeLifetime
        )
    }

    /// An error sent to the client's (already verified) redirect URI.
    func failure(redirectURI: String, state: String?, error: String, description: String, afterPost: Bool = false) -> Response {
        let location = Redirect.url(
            redirectURI,
            adding: [
                ("error", error), ("error_description", description), ("state", state), ("iss", issuer),
            ])
        return Redirect.to(location, afterPost: afterPost)
    }
}
