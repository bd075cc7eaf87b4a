/// What a client says about itself when it registers (RFC 7591 §2), and what the server answers it was registered
/// with. Members a server does not know are ignored, as RFC 7591 asks.
public struct ClientMetadata: Codable, Sendable, Equatable {
    /// Where the authorization server may send the browser back with a code; required for the authorization code grant.
    public var redirectURIs: [String]?
    /// How the client authenticates at the token endpoint: `none` (a public client), `client_secret_basic` (the
    /// default) or `client_secret_post`.
    public var tokenEndpointAuthMethod: String?
    /// The grants it uses: `authorization_code` (the default) and `refresh_token`.
    public var grantTypes: [String]?
    /// The response types it uses: `code` only.
    public var responseTypes: [String]?
    /// The name people read on the consent page.
    public var clientName: String?
    /// Its home page.
    public var clientURI: String?
    /// Its logo, shown on the consent page.
    public var logoURI: String?
    /// Space-separated scopes it may ask for.
    public var scope: String?
    /// Email addresses of the people responsible for it.
    public var contacts: [String]?
    /// Its terms of service.
    public var termsOfServiceURI: String?
    /// Its privacy policy.
    public var policyURI: String?
    /// Where its public keys are, for `private_key_jwt`.
    public var jwksURI: String?
    /// Its public keys themselves, for `private_key_jwt`, when it publishes them at no URL.
    public var jwks: JSONWebKeySet?
    /// Which software it is, the same for every instance.
    public var softwareID: String?
    /// The version of that software.
    public var softwareVersion: String?
    /// Where the provider posts a logout token when a person signs out (OpenID Connect Back-Channel Logout 1.0).
    public var backchannelLogoutURI: String?
    /// Whether logout tokens must carry `sid` (Gatehouse's always do when the sign-in had a browser session).
    public var backchannelLogoutSessionRequired: Bool?
    /// The page the provider's signed-out page loads in a frame when a person signs out (Front-Channel Logout 1.0).
    public var frontchannelLogoutURI: String?
    /// Whether that page is given `iss` and `sid` (Gatehouse always gives them).
    public var frontchannelLogoutSessionRequired: Bool?
    /// Whether the client sends every authorization request as a signed request object (RFC 9101 §10.5).
    public var requireSignedRequestObject: Bool?
    /// Whether the client pushes every authorization request first (RFC 9126 §6).
    public var requirePushedAuthorizationRequests: Bool?

    /// Metadata with every member absent.
    public init(
        redirectURIs: [String]? = nil, tokenEndpointAuthMethod: String? = nil, grantTypes: [String]? = nil, responseTypes: [String]? = nil,
        clientName: String? = nil, clientURI: String? = nil, logoURI: String? = nil, scope: String? = nil, contacts: [String]? = nil,
        termsOfServiceURI: String? = nil, policyURI: String? = nil, jwksURI: String? = nil, jwks: JSONWebKeySet? = nil, softwareID: String? = nil,
        softwareVersion: String? = nil
    ) {
        self.redirectURIs = redirectURIs
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.clientName = clientName
        self.clientURI = clientURI
        self.logoURI = logoURI
        self.scope = scope
        self.contacts = contacts
        self.termsOfServiceURI = termsOfServiceURI
        self.policyURI = policyURI
        self.jwksURI = jwksURI
        self.jwks = jwks
        self.softwareID = softwareID
        self.softwareVersion = softwareVersion
    }

    enum CodingKeys: String, CodingKey {
        case scope, contacts
        case redirectURIs = "redirect_uris"
        case tokenEndpointAuthMethod = "token_endpoint_auth_method"
        case grantTypes = "grant_types"
        case responseTypes = "response_types"
        case clientName = "client_name"
        case clientURI = "client_uri"
        case logoURI = "logo_uri"
        case termsOfServiceURI = "tos_uri"
        case policyURI = "policy_uri"
        case jwksURI = "jwks_uri"
        case jwks
        case softwareID = "software_id"
        case softwareVersion = "software_version"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case backchannelLogoutSessionRequired = "backchannel_logout_session_required"
        case frontchannelLogoutURI = "frontchannel_logout_uri"
        case frontchannelLogoutSessionRequired = "frontchannel_logout_session_required"
        case requireSignedRequestObject = "require_signed_request_object"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
    }
}

/// A registered client as the registration endpoint answers (RFC 7591 §3.2.1, RFC 7592 §3): its metadata, its
/// identifier and secret, and how to read, change or delete the registration later.
public struct ClientInformation: Codable, Sendable, Equatable {
    /// The identifier the server gave the client.
    public var clientID: String
    /// The secret of a confidential client: given once, at registration.
    public var clientSecret: String?
    /// When the identifier was issued (Unix seconds).
    public var clientIDIssuedAt: Int64?
    /// When the secret expires (Unix seconds); `0` for never. Present whenever a secret is.
    public var clientSecretExpiresAt: Int64?
    /// The bearer token for the client's configuration endpoint (RFC 7592): given once, at registration.
    public var registrationAccessToken: String?
    /// The client's configuration endpoint: read (`GET`), change (`PUT`) and delete (`DELETE`) the registration there.
    public var registrationClientURI: String?
    /// The metadata as registered, with the server's defaults filled in.
    public var metadata: ClientMetadata

    /// Information about the client `clientID`.
    public init(
        clientID: String, clientSecret: String? = nil, clientIDIssuedAt: Int64? = nil, clientSecretExpiresAt: Int64? = nil,
        registrationAccessToken: String? = nil, registrationClientURI: String? = nil, metadata: ClientMetadata
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientIDIssuedAt = clientIDIssuedAt
        self.clientSecretExpiresAt = clientSecretExpiresAt
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientIDIssuedAt = "client_id_issued_at"
        case clientSecretExpiresAt = "client_secret_expires_at"
        case registrationAccessToken = "registration_access_token"
        case registrationClientURI = "registration_client_uri"
    }

    /// Reads the identifier members and the metadata from one JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clientID = try container.decode(String.self, forKey: .clientID)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret)
        clientIDIssuedAt = try container.decodeIfPresent(Int64.self, forKey: .clientIDIssuedAt)
        clientSecretExpiresAt = try container.decodeIfPresent(Int64.self, forKey: .clientSecretExpiresAt)
        registrationAccessToken = try container.decodeIfPresent(String.self, forKey: .registrationAccessToken)
        registrationClientURI = try container.decodeIfPresent(String.self, forKey: .registrationClientURI)
        metadata = try ClientMetadata(from: decoder)
    }

    /// Writes the identifier members and the metadata into one JSON object.
    public func encode(to encoder: any Encoder) throws {
        try metadata.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(clientIDIssuedAt, forKey: .clientIDIssuedAt)
        try container.encodeIfPresent(clientSecretExpiresAt, forKey: .clientSecretExpiresAt)
        try container.encodeIfPresent(registrationAccessToken, forKey: .registrationAccessToken)
        try container.encodeIfPresent(registrationClientURI, forKey: .registrationClientURI)
    }
}
