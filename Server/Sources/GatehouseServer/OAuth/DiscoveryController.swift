import GatehouseDomain
import GatehouseEngines
import GatehouseProtocol
import Hummingbird

/// Discovery (`/.well-known/openid-configuration`, and the same document as OAuth 2.0 authorization server metadata at
/// `/.well-known/oauth-authorization-server`, RFC 8414, for clients that know only OAuth) and the JWKS.
struct DiscoveryController: Sendable {
    let issuer: String
    let keys: SigningKeyRing
    /// Whether clients may register themselves (`dynamic_registration.enabled`): then `registration_endpoint` is named.
    var registration = false
    /// Whether clients may be known by the URL of their metadata document (`client_metadata_documents.enabled`).
    var metadataDocuments = false
    /// Whether every request must be pushed first, and signed (`require_pushed_authorization_requests`,
    /// `require_signed_request_object`).
    var requirePushed = false
    var requireSigned = false
    /// The profile every client is held to (`fapi2`): discovery then offers only what it allows.
    var profile: SecurityProfile? = nil
    /// Seconds a client may cache the JWKS (``SigningKeyPolicy/keySetMaxAge``).
    var keySetMaxAge: Int64 = 60

    func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        // The metadata never changes while the server runs: encoded once.
        let metadata = JSONResponse.encode(
            Self.metadata(
                issuer: issuer, registration: registration, metadataDocuments: metadataDocuments, requirePushed: requirePushed,
                requireSigned: requireSigned, profile: profile))
        router.get("/.well-known/openid-configuration") { _, _ in JSONResponse.data(metadata, cacheable: true) }
        // RFC 8414 §3: the issuer has no path, so the well-known URI is at the root; its members are the same.
        router.get("/.well-known/oauth-authorization-server") { _, _ in JSONResponse.data(metadata, cacheable: true) }
        let cacheControl = "public, max-age=\(keySetMaxAge)"
        router.get("/jwks") { _, _ in
            // Short caching: clients must see a rotated key soon.
            var response = JSONResponse.data(try await keys.publicKeySetDocument(), cacheable: true)
            response.headers[.cacheControl] = cacheControl
            return response
        }
    }

    static func metadata(
        issuer: String, registration: Bool = false, metadataDocuments: Bool = false, requirePushed: Bool = false, requireSigned: Bool = false,
        profile: SecurityProfile? = nil
    ) -> OpenIDProviderMetadata {
        var metadata = OpenIDProviderMetadata(
            issuer: issuer,
            authorizationEndpoint: issuer + "/authorize",
            tokenEndpoint: issuer + "/token",
            userinfoEndpoint: issuer + "/userinfo",
            jwksURI: issuer + "/jwks",
            revocationEndpoint: issuer + "/revoke",
            introspectionEndpoint: issuer + "/introspect",
            endSessionEndpoint: issuer + "/logout",
            scopesSupported: ClientRegistrationRules.userScopes,
            responseTypesSupported: ["code"],
            responseModesSupported: ["query"],
            grantTypesSupported: [
                "authorization_code", "refresh_token", "client_credentials", DeviceAuthorizationController.grantType, TokenController.tokenExchange,
            ],
            subjectTypesSupported: ["public"],
            idTokenSigningAlgValuesSupported: SigningKeyFactory.algorithms,
            tokenEndpointAuthMethodsSupported: ClientAuthenticationMethod.allCases.map(\.rawValue),
            codeChallengeMethodsSupported: [PKCE.method],
            claimsSupported: [
                "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "amr", "acr", "sid",
                "name", "given_name", "family_name", "preferred_username", "email", "email_verified", "phone_number",
                "phone_number_verified", "address", "locale", "updated_at",
            ],
            promptValuesSupported: AuthorizationController.supportedPrompts.sorted()
        )
        metadata.acrValuesSupported = [LoginFlow.passwordACR, LoginFlow.multiFactorACR]
        metadata.claimsParameterSupported = true
        metadata.backchannelLogoutSupported = true
        metadata.backchannelLogoutSessionSupported = true
        metadata.frontchannelLogoutSupported = true
        metadata.frontchannelLogoutSessionSupported = true
        metadata.deviceAuthorizationEndpoint = issuer + "/device_authorization"
        metadata.dpopSigningAlgValuesSupported = DPoPProofVerifier.algorithms
        metadata.pushedAuthorizationRequestEndpoint = issuer + "/par"
        metadata.requirePushedAuthorizationRequests = requirePushed
        metadata.requestParameterSupported = true
        metadata.requireSignedRequestObject = requireSigned
        metadata.requestObjectSigningAlgValuesSupported = RequestObjectVerifier.algorithms
        // Every endpoint that authenticates clients takes the same assertions (RFC 8414 §2 asks for each list).
        let assertionAlgorithms = ClientAssertionVerifier.algorithms + ClientAssertionVerifier.macAlgorithms
        metadata.tokenEndpointAuthSigningAlgValuesSupported = assertionAlgorithms
        metadata.revocationEndpointAuthSigningAlgValuesSupported = assertionAlgorithms
        metadata.introspectionEndpointAuthSigningAlgValuesSupported = assertionAlgorithms
        if profile == .fapi2 {
            // FAPI 2.0: clients authenticate with their keys, push every request, and sign with PS256, ES256 or EdDSA.
            let algorithms = SecurityProfile.fapi2Algorithms
            metadata.tokenEndpointAuthMethodsSupported = [ClientAuthenticationMethod.privateKeyJWT.rawValue]
            metadata.revocationEndpointAuthMethodsSupported = metadata.tokenEndpointAuthMethodsSupported
            metadata.introspectionEndpointAuthMethodsSupported = metadata.tokenEndpointAuthMethodsSupported
            metadata.tokenEndpointAuthSigningAlgValuesSupported = algorithms
            metadata.revocationEndpointAuthSigningAlgValuesSupported = algorithms
            metadata.introspectionEndpointAuthSigningAlgValuesSupported = algorithms
            metadata.requestObjectSigningAlgValuesSupported = algorithms
            metadata.idTokenSigningAlgValuesSupported = ["ES256"]
            metadata.requirePushedAuthorizationRequests = true
            metadata.dpopSigningAlgValuesSupported = DPoPProofVerifier.algorithms.filter(algorithms.contains)
        }
        if registration { metadata.registrationEndpoint = issuer + "/register" }
        if metadataDocuments { metadata.clientIDMetadataDocumentSupported = true }
        return metadata
    }
}
