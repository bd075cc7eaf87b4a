import Foundation
import GatehouseProtocol

/// An application registered to sign users in (an OAuth 2.0 client / OpenID Connect relying party).
public struct Client: Sendable, Equatable, Codable {
    public var id: String
    public var name: String?
    /// SHA-256 of the secret, for confidential clients; `nil` for public clients (apps that cannot keep a secret).
    public var secretHash: String?
    /// Redirect URIs, matched by exact string (loopback IP ones on any port, ``allowsRedirect(to:)``).
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// Scopes the client may request.
    public var scopes: [String]
    /// `RS256` (default) or `ES256`, the client's `id_token_signed_response_alg`.
    public var idTokenAlgorithm: String
    public var createdAt: Int64
    /// Whether an authorization request must carry a PKCE challenge: always for public clients, and by default
    /// for confidential ones too (RFC 9700 §2.1.1); `false` only for a legacy confidential client that cannot send one.
    public var requiresPKCE = true
    /// Whether the client may use the device authorization grant (RFC 8628): off unless the operator allows it, since
    /// a user code is a sign-in that can be started anywhere and handed to someone else to approve.
    public var allowsDeviceGrant = false
    /// Whether every token request must carry a DPoP proof (RFC 9449), so the client's tokens are always bound to its key.
    public var requiresDPoP = false
    /// Whether the client belongs to someone other than the operator (a third party): a person allows it what it asks
    /// for on a consent node before it gets a code, and once per scope (``ConsentStore``). First-party clients never ask.
    public var isThirdParty = false
    /// The logo the consent node shows, when registered (`logo_uri`).
    public var logoURI: String?
    /// The client's home page, linked from the consent node, when registered (`client_uri`).
    public var homepage: String?
    /// Whether the client registered itself (RFC 7591) rather than being registered by an operator.
    public var registeredDynamically = false
    /// When an openly registered client that has not yet got a token is removed; `nil` once used, and for every other
    /// client.
    public var unusedExpiresAt: Int64?
    /// What the client may get by exchanging someone's token (RFC 8693); `nil`: nothing.
    public var tokenExchange: TokenExchangePolicy?
    /// For a client known by the URL of its metadata document: when the cached copy is fetched again. `nil` for every
    /// other client.
    public var metadataDocumentExpiresAt: Int64?
    /// For a client that authenticates with a key (`private_key_jwt`): where its public keys are published.
    public var jwksURI: String?
    /// For a client that authenticates with a key: its public keys, when registered with them instead of a URL.
    public var jwks: JSONWebKeySet?

    /// Where logout tokens are posted when a person who signed in to it signs out (Back-Channel Logout 1.0).
    public var backchannelLogoutURI: String?
    /// The page the signed-out page loads in a frame when a person who signed in to it signs out (Front-Channel Logout 1.0).
    public var frontchannelLogoutURI: String?
    /// The security profile it is held to (FAPI 2.0), if any.
    public var profile: SecurityProfile?
    /// Whether every authorization request must come as a request object signed by the client (RFC 9101).
    public var requiresSignedRequestObject = false
    /// Whether every authorization request must be pushed first (RFC 9126).
    public var requiresPushedAuthorizationRequests = false
    /// How it registered to authenticate, when said (`token_endpoint_auth_method`); ``authenticationMethod`` reads it.
    public var registeredAuthenticationMethod: ClientAuthenticationMethod?
    /// For a `client_secret_jwt` client: its secret sealed under the server secret, to check the assertion's MAC.
    public var sealedSecret: String?

    /// Whether the client authenticates with a signed assertion (`private_key_jwt`, RFC 7523) instead of a secret.
    public var usesKeys: Bool { jwksURI != nil || jwks != nil }

    /// Whether an operator registered the client (neither it registering itself nor its metadata document): the URLs
    /// it names (keys, logout) may be on the operator's own network.
    public var registeredByOperator: Bool { !registeredDynamically && metadataDocumentExpiresAt == nil }

    /// Whether the client is held to FAPI 2.0.
    public var followsFAPI2: Bool { profile == .fapi2 }

    /// The algorithms its client assertions and request objects may be signed with: FAPI 2.0's for a FAPI client.
    public func allowsSigningAlgorithm(_ algorithm: String) -> Bool {
        !followsFAPI2 || SecurityProfile.fapi2Algorithms.contains(algorithm)
    }

    /// A client with neither a secret nor keys: an app that cannot keep a credential.
    public var isPublic: Bool { secretHash == nil && !usesKeys }

    /// How the client authenticates: as registered, or, for a client registered before methods were stored, as its
    /// credentials imply (keys: `private_key_jwt`; a secret: `client_secret_basic`; neither: `none`).
    public var authenticationMethod: ClientAuthenticationMethod {
        if let registeredAuthenticationMethod { return registeredAuthenticationMethod }
        return usesKeys ? .privateKeyJWT : secretHash != nil ? .clientSecretBasic : .none
    }

    package enum CodingKeys: String, CodingKey {
        case id, name, scopes
        case secretHash = "secret_hash"
        case redirectURIs = "redirect_uris"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case idTokenAlgorithm = "id_token_signed_response_alg"
        case createdAt = "created_at"
        case requiresPKCE = "require_pkce"
        case allowsDeviceGrant = "device_grant"
        case requiresDPoP = "require_dpop"
        case isThirdParty = "third_party"
        case logoURI = "logo_uri"
        case homepage = "client_uri"
    }

    /// Whether `uri` is one of the client's redirect URIs: exactly, or, for a registered loopback IP URI
    /// (`http://127.0.0.1/callback`, `http://[::1]/callback`), with any port, as RFC 8252 §7.3 asks of servers for
    /// native apps that listen on a port the system gives them.
    public func allowsRedirect(to uri: String) -> Bool {
        Self.matches(uri, registered: redirectURIs)
    }

    /// Whether `uri` is one of the client's post-logout redirect URIs, matched like ``allowsRedirect(to:)``: a native
    /// app signing out in the browser listens on a new port each time too.
    public func allowsPostLogoutRedirect(to uri: String) -> Bool {
        Self.matches(uri, registered: postLogoutRedirectURIs)
    }

    /// The ports a loopback redirect may name: 0 is "any port" to the listener, never one it listens on.
    package static let portRange = 1...65_535

    private static func matches(_ uri: String, registered: [String]) -> Bool {
        if registered.contains(uri) { return true }
        guard let requested = URLComponents(string: uri), requested.scheme == "http", let host = requested.host,
            host == "127.0.0.1" || host == "[::1]" || host == "::1", let port = requested.port, Self.portRange.contains(port)
        else { return false }
        var portless = requested
        portless.port = nil
        guard let bare = portless.string else { return false }
        return registered.contains(bare)
    }

    package init(
        id: String, name: String? = nil, secretHash: String? = nil, redirectURIs: [String], postLogoutRedirectURIs: [String], scopes: [String],
        idTokenAlgorithm: String, createdAt: Int64, requiresPKCE: Bool = true, allowsDeviceGrant: Bool = false, requiresDPoP: Bool = false,
        isThirdParty: Bool = false, logoURI: String? = nil, homepage: String? = nil
    ) {
        self.id = id
        self.name = name
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.idTokenAlgorithm = idTokenAlgorithm
        self.createdAt = createdAt
        self.requiresPKCE = requiresPKCE
        self.allowsDeviceGrant = allowsDeviceGrant
        self.requiresDPoP = requiresDPoP
        self.isThirdParty = isThirdParty
        self.logoURI = logoURI
        self.homepage = homepage
    }
}
