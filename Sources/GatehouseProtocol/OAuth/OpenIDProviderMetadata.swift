/// OpenID Provider metadata (OpenID Connect Discovery 1.0 §3, RFC 8414), served at
/// `/.well-known/openid-configuration`.
public struct OpenIDProviderMetadata: Codable, Sendable, Equatable {
    /// The issuer identifier: the exact string every ID token's `iss` carries.
    public var issuer: String
    /// Where the browser starts an authorization code flow (`/authorize`).
    public var authorizationEndpoint: String
    /// Where codes and refresh tokens are exchanged for tokens (`/token`).
    public var tokenEndpoint: String
    /// Where an access token with `openid` reads the user's claims (`/userinfo`).
    public var userinfoEndpoint: String
    /// The JSON Web Key Set that verifies ID token signatures (`/jwks`).
    public var jwksURI: String
    /// Where a client revokes a token (RFC 7009, `/revoke`).
    public var revocationEndpoint: String
    /// Where a resource server asks whether a token is active (RFC 7662, `/introspect`).
    public var introspectionEndpoint: String
    /// Where a relying party signs the user out (RP-initiated logout, `/end_session`).
    public var endSessionEndpoint: String
    /// Where a device without a keyboard-friendly browser starts the device authorization grant (RFC 8628 §4), if offered.
    public var deviceAuthorizationEndpoint: String?
    /// Where clients register themselves (RFC 7591), when the provider lets them.
    public var registrationEndpoint: String?
    /// Whether a client may use the https URL of its metadata document as its `client_id`.
    public var clientIDMetadataDocumentSupported: Bool?
    /// The algorithms `private_key_jwt` assertions may be signed with.
    public var tokenEndpointAuthSigningAlgValuesSupported: [String]?
    /// The same at the revocation endpoint (RFC 8414 §2).
    public var revocationEndpointAuthSigningAlgValuesSupported: [String]?
    /// The same at the introspection endpoint (RFC 8414 §2).
    public var introspectionEndpointAuthSigningAlgValuesSupported: [String]?
    /// The algorithms DPoP proofs may be signed with (RFC 9449 §5.1), when the provider accepts them.
    public var dpopSigningAlgValuesSupported: [String]?
    /// Where a client pushes its authorization request ahead (RFC 9126 §5), if offered.
    public var pushedAuthorizationRequestEndpoint: String?
    /// Whether every authorization request must be pushed first (RFC 9126 §5).
    public var requirePushedAuthorizationRequests: Bool?
    /// Whether every authorization request must come as a signed request object (RFC 9101 §10.5).
    public var requireSignedRequestObject: Bool?
    /// The algorithms request objects may be signed with (OpenID Connect Discovery §3).
    public var requestObjectSigningAlgValuesSupported: [String]?
    /// The scopes clients may request.
    public var scopesSupported: [String]
    /// The authorization response types: only `code`.
    public var responseTypesSupported: [String]
    /// How the authorization response is returned: only `query`.
    public var responseModesSupported: [String]
    /// The grant types the token endpoint accepts.
    public var grantTypesSupported: [String]
    /// How subject identifiers are assigned: `public`.
    public var subjectTypesSupported: [String]
    /// The algorithms ID tokens are signed with (`RS256`, `ES256`).
    public var idTokenSigningAlgValuesSupported: [String]
    /// How confidential clients authenticate at the token endpoint.
    public var tokenEndpointAuthMethodsSupported: [String]
    /// How clients authenticate at the revocation endpoint; the same as at the token endpoint.
    public var revocationEndpointAuthMethodsSupported: [String]
    /// How resource servers authenticate at the introspection endpoint; the same as at the token endpoint.
    public var introspectionEndpointAuthMethodsSupported: [String]
    /// The PKCE methods accepted: only `S256`.
    public var codeChallengeMethodsSupported: [String]
    /// The claims ID tokens and userinfo may carry.
    public var claimsSupported: [String]
    /// The `acr` values the provider can satisfy (`acr_values_supported`).
    public var acrValuesSupported: [String]?
    /// The `prompt` values understood (`none`, `login`, `consent`, `create`).
    public var promptValuesSupported: [String]
    /// Whether authorization responses carry `iss` (RFC 9207): always, so clients can tell providers apart.
    public var authorizationResponseIssParameterSupported: Bool
    /// Whether request objects (`request`, RFC 9101) are accepted.
    public var requestParameterSupported: Bool
    /// Whether `request_uri` is accepted: no.
    public var requestURIParameterSupported: Bool
    /// Whether the `claims` request parameter is understood: no.
    public var claimsParameterSupported: Bool
    /// Whether front-channel logout is offered (OpenID Connect Front-Channel Logout 1.0).
    public var frontchannelLogoutSupported: Bool
    /// Whether front-channel logout requests carry `iss` and `sid`.
    public var frontchannelLogoutSessionSupported: Bool?
    /// Whether back-channel logout is offered (OpenID Connect Back-Channel Logout 1.0).
    public var backchannelLogoutSupported: Bool
    /// Whether logout tokens carry `sid`.
    public var backchannelLogoutSessionSupported: Bool?

    /// Metadata with the given values; the revocation and introspection authentication methods follow the token endpoint's,
    /// and the flags start as nothing offered beyond `iss` in responses: no request objects, no `claims` parameter, no
    /// channel logout. The provider turns on what it offers.
    public init(
        issuer: String,
        authorizationEndpoint: String,
        tokenEndpoint: String,
        userinfoEndpoint: String,
        jwksURI: String,
        revocationEndpoint: String,
        introspectionEndpoint: String,
        endSessionEndpoint: String,
        scopesSupported: [String],
        responseTypesSupported: [String],
        responseModesSupported: [String],
        grantTypesSupported: [String],
        subjectTypesSupported: [String],
        idTokenSigningAlgValuesSupported: [String],
        tokenEndpointAuthMethodsSupported: [String],
        codeChallengeMethodsSupported: [String],
        claimsSupported: [String],
        promptValuesSupported: [String]
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.jwksURI = jwksURI
        self.revocationEndpoint = revocationEndpoint
        self.introspectionEndpoint = introspectionEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.scopesSupported = scopesSupported
        self.responseTypesSupported = responseTypesSupported
        self.responseModesSupported = responseModesSupported
        self.grantTypesSupported = grantTypesSupported
        self.subjectTypesSupported = subjectTypesSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.revocationEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.introspectionEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.claimsSupported = claimsSupported
        self.promptValuesSupported = promptValuesSupported
        self.authorizationResponseIssParameterSupported = true
        self.requestParameterSupported = false
        self.requestURIParameterSupported = false
        self.claimsParameterSupported = false
        self.frontchannelLogoutSupported = false
        self.backchannelLogoutSupported = false
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case registrationEndpoint = "registration_endpoint"
        case clientIDMetadataDocumentSupported = "client_id_metadata_document_supported"
        case tokenEndpointAuthSigningAlgValuesSupported = "token_endpoint_auth_signing_alg_values_supported"
        case revocationEndpointAuthSigningAlgValuesSupported = "revocation_endpoint_auth_signing_alg_values_supported"
        case introspectionEndpointAuthSigningAlgValuesSupported = "introspection_endpoint_auth_signing_alg_values_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case requireSignedRequestObject = "require_signed_request_object"
        case requestObjectSigningAlgValuesSupported = "request_object_signing_alg_values_supported"
        case scopesSupported = "scopes_supported"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case grantTypesSupported = "grant_types_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case claimsSupported = "claims_supported"
        case acrValuesSupported = "acr_values_supported"
        case promptValuesSupported = "prompt_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case requestParameterSupported = "request_parameter_supported"
        case requestURIParameterSupported = "request_uri_parameter_supported"
        case claimsParameterSupported = "claims_parameter_supported"
        case frontchannelLogoutSupported = "frontchannel_logout_supported"
        case frontchannelLogoutSessionSupported = "frontchannel_logout_session_supported"
        case backchannelLogoutSupported = "backchannel_logout_supported"
        case backchannelLogoutSessionSupported = "backchannel_logout_session_supported"
    }
}
