import Foundation
import GatehouseProtocol

/// How every sign-in ends, whatever brought the tokens — a native flow, the browser, a device code: the ID token
/// validated, then the session started and stored, or, for a step-up, the held session given the new tokens.
struct SignInCompletion: Sendable {
    let configuration: GatehouseConfiguration
    let metadata: OpenIDProviderMetadata
    /// The new session's DPoP key, when the app asked for bound tokens; every token request of the sign-in uses it.
    let dpop: DPoPProofs?

    init(configuration: GatehouseConfiguration, metadata: OpenIDProviderMetadata) throws(GatehouseError) {
        self.configuration = configuration
        self.metadata = metadata
        dpop = try DPoPProofs.make(for: configuration)
    }

    /// The thumbprint of this sign-in's DPoP key, sent as `dpop_jkt` so the code is bound to the key (RFC 9449 §10).
    var dpopThumbprint: String? { dpop?.key.publicKey.thumbprint }

    /// The token endpoint, with this sign-in's key.
    var tokenClient: TokenClient { TokenClient(configuration: configuration, metadata: metadata, dpop: dpop) }

    /// Exchanges an authorization code with its PKCE verifier and the redirect URI it was sent to, then finishes.
    func exchange(
        code: String, verifier: String, redirectURI: String, nonce: String, maxAge: Int? = nil, replacing: UserSession? = nil
    ) async throws(GatehouseError) -> SuccessNode {
        let response = try await tokenClient.exchange(code: code, verifier: verifier, redirectURI: redirectURI)
        return try await finish(response, nonce: nonce, maxAge: maxAge, replacing: replacing)
    }

    /// Validates the ID token of `response` (its `nonce`, and `auth_time` against `maxAge`) and starts the session.
    func finish(
        _ response: TokenResponse, nonce: String?, maxAge: Int? = nil, replacing: UserSession? = nil
    ) async throws(GatehouseError) -> SuccessNode {
        guard let idToken = response.idToken else { throw .unexpectedResponse(status: 200) }
        let validator = try IDTokenValidator(configuration: configuration, metadata: metadata)
        let claims = try await validator.checked(idToken, nonce: nonce, maxAge: maxAge)
        let user: UserSession
        if let replacing {
            // A step-up: the same person, signed in again more strongly; the session everyone holds gets the new tokens.
            try await replacing.replaceTokens(with: TokenSet(response: response), claims: claims, dpop: dpop)
            user = replacing
        } else {
            user = try await UserSession.start(
                with: TokenSet(response: response), claims: claims, configuration: configuration, metadata: metadata, dpop: dpop)
        }
        configuration.logger.info("Signed in", metadata: ["subject": "\(claims.subject)"])
        return SuccessNode(user: user, claims: claims)
    }
}
