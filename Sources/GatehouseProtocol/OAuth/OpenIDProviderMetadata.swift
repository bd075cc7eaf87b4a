/// OpenID Provider metadata (OpenID Connect Discovery 1.0 §3, RFC 8414), served at
/// `/.well-known/openid-configuration`.
public struct OpenIDProviderMetadata: Codable, Sendable, Equatable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var userinfoEndpoint: String
    public var jwksURI: String
    public var revocationEndpoint: String
    public var introspectionEndpoint: String
    public var endSessionEndpoint: String
    public var scopesSupported: [String]
    public var responseTypesSupported: [String]
    public var responseModesSupported: [String]
    public var grantTypesSupported: [String]
    public var subjectTypesSupported: [String]
    public var idTokenSigningAlgValuesSupported: [String]
    public var tokenEndpointAuthMethodsSupported: [String]
    public var revocationEndpointAuthMethodsSupported: [String]
    public var introspectionEndpointAuthMethodsSupported: [String]
    public var codeChallengeMethodsSupported: [String]
    public var claimsSupported: [String]
    /// The `acr` values the provider can satisfy (`acr_values_supported`).
    public var acrValuesSupported: [String]?
    public var promptValuesSupported: [String]
    public var authorizationResponseIssParameterSupported: Bool
    public var requestParameterSupported: Bool
    public var requestURIParameterSupported: Bool
    public var claimsParameterSupported: Bool
    public var frontchannelLogoutSupported: Bool
    public var backchannelLogoutSupported: Bool

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
        case backchannelLogoutSupported = "backchannel_logout_supported"
    }
}
