import Crypto
import Foundation
import GatehouseDomain
import GatehouseProtocol

/// Strong entity tags over what the API shows of a resource (its JSON with sorted keys): any visible change changes
/// the tag, so `If-Match` catches a change made since the caller read it.
enum AdminETag {
    static func of(_ representation: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let digest = SHA256.hash(data: (try? encoder.encode(representation)) ?? Data())
        return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
    }
}

/// A user as the admin API shows it: never the password hash.
public struct AdminUser: Codable, Sendable, Equatable {
    public var id, username, email: String
    public var emailVerified: Bool
    public var name, givenName, familyName, phoneNumber: String?
    public var phoneNumberVerified, locked, hasPassword: Bool
    /// Their postal address (the `address` claim).
    public var address: PostalAddress?
    /// The language they chose for pages and messages, when they chose one.
    public var locale: String?
    public var createdAt, updatedAt: Int64

    /// What the API shows of `user`.
    public init(_ user: User) {
        id = user.id
        username = user.username
        email = user.email
        emailVerified = user.emailVerified
        name = user.name
        givenName = user.givenName
        familyName = user.familyName
        phoneNumber = user.phoneNumber
        phoneNumberVerified = user.phoneVerified
        address = user.address
        locale = user.locale
        locked = user.isLocked
        hasPassword = user.hasPassword
        createdAt = user.createdAt
        updatedAt = user.updatedAt
    }

    /// A strong ETag of the whole representation: any change to the user changes it.
    static func eTag(of user: User) -> String { AdminETag.of(AdminUser(user)) }

    enum CodingKeys: String, CodingKey {
        case id, username, email, name, locked, address, locale
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case hasPassword = "has_password"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

/// `POST /admin/v1/users`.
struct AdminNewUser: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys

    var username, email: String
    var emailVerified: Bool?
    var name, givenName, familyName: String?
    /// Without one the account has no password until its owner sets one (recovery).
    var password: String?
    /// The language of the person's pages and messages; without one, the browser's.
    var locale: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case username, email, name, password, locale
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
    }
}

/// `PATCH /admin/v1/users/{id}`: the fields given change, the others stay.
struct AdminUserChange: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys

    var email: String?
    var emailVerified: Bool?
    var name, givenName, familyName: String?
    var phoneNumber: String?
    var phoneNumberVerified: Bool?
    /// The whole address, replacing the one held; an object with no part removes it.
    var address: PostalAddress?
    /// The language of the person's pages and messages; empty to follow the browser's again.
    var locale: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case email, name, address, locale
        case emailVerified = "email_verified"
        case givenName = "given_name"
        case familyName = "family_name"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
    }
}

/// A client as the admin API shows it: never its secret's digest.
public struct AdminClient: Codable, Sendable {
    public var id: String
    public var name: String?
    public var isPublic: Bool
    public var redirectURIs, postLogoutRedirectURIs, scopes: [String]
    public var idTokenAlgorithm: String
    public var requirePKCE: Bool
    /// Whether the client may use the device authorization grant (RFC 8628).
    public var deviceGrant: Bool
    /// Whether the client's token requests must carry DPoP proofs (RFC 9449).
    public var requireDPoP: Bool
    /// Whether people allow the client what it asks for on a consent node (a third party's application).
    public var thirdParty: Bool
    /// Its logo and home page, shown on the consent node.
    public var logoURI, homepage: String?
    public var createdAt: Int64
    /// Whether the client registered itself (RFC 7591).
    public var dynamic: Bool
    /// When an openly registered client that never got a token is removed.
    public var unusedExpiresAt: Int64?
    /// What it may get by exchanging a person's token (RFC 8693).
    public var tokenExchange: TokenExchangePolicy?
    /// How it authenticates at the token endpoint and its peers.
    public var authenticationMethod: ClientAuthenticationMethod
    /// A `private_key_jwt` client's public keys: where they are published, or the keys.
    public var jwksURI: String?
    public var jwks: JSONWebKeySet?
    /// Where logout tokens are posted, and the page loaded in a frame on sign-out.
    public var backchannelLogoutURI, frontchannelLogoutURI: String?
    /// Whether it must sign its authorization requests (RFC 9101), and push them first (RFC 9126).
    public var requireSignedRequestObject, requirePushedAuthorizationRequests: Bool
    /// The security profile it is held to (`fapi2`), if any.
    public var profile: SecurityProfile?

    /// What the API shows of `client`.
    public init(_ client: Client) {
        id = client.id
        name = client.name
        isPublic = client.isPublic
        redirectURIs = client.redirectURIs
        postLogoutRedirectURIs = client.postLogoutRedirectURIs
        scopes = client.scopes
        idTokenAlgorithm = client.idTokenAlgorithm
        requirePKCE = client.requiresPKCE
        deviceGrant = client.allowsDeviceGrant
        requireDPoP = client.requiresDPoP
        thirdParty = client.isThirdParty
        logoURI = client.logoURI
        homepage = client.homepage
        createdAt = client.createdAt
        dynamic = client.registeredDynamically
        unusedExpiresAt = client.unusedExpiresAt
        tokenExchange = client.tokenExchange
        authenticationMethod = client.authenticationMethod
        jwksURI = client.jwksURI
        jwks = client.jwks
        backchannelLogoutURI = client.backchannelLogoutURI
        frontchannelLogoutURI = client.frontchannelLogoutURI
        requireSignedRequestObject = client.requiresSignedRequestObject
        requirePushedAuthorizationRequests = client.requiresPushedAuthorizationRequests
        profile = client.profile
    }

    enum CodingKeys: String, CodingKey {
        case id, name, scopes, jwks, profile
        case authenticationMethod = "token_endpoint_auth_method"
        case jwksURI = "jwks_uri"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case frontchannelLogoutURI = "frontchannel_logout_uri"
        case requireSignedRequestObject = "require_signed_request_object"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case isPublic = "public"
        case redirectURIs = "redirect_uris"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case idTokenAlgorithm = "id_token_alg"
        case requirePKCE = "require_pkce"
        case deviceGrant = "device_grant"
        case requireDPoP = "require_dpop"
        case thirdParty = "third_party"
        case logoURI = "logo_uri"
        case homepage = "client_uri"
        case createdAt = "created_at"
        case dynamic
        case unusedExpiresAt = "unused_expires_at"
        case tokenExchange = "token_exchange"
    }
}

/// `POST /admin/v1/clients`.
struct AdminNewClient: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys

    var id: String
    var name: String?
    var redirectURIs: [String]
    var postLogoutRedirectURIs: [String]?
    var scopes: [String]?
    var isPublic: Bool?
    var idTokenAlgorithm: String?
    var deviceGrant: Bool?
    var requireDPoP: Bool?
    var thirdParty: Bool?
    var logoURI, homepage: String?
    var tokenExchange: TokenExchangePolicy?
    var authenticationMethod: ClientAuthenticationMethod?
    var jwksURI: String?
    var jwks: JSONWebKeySet?
    var backchannelLogoutURI, frontchannelLogoutURI: String?
    var requireSignedRequestObject, requirePushedAuthorizationRequests: Bool?
    var profile: SecurityProfile?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, scopes, jwks, profile
        case authenticationMethod = "token_endpoint_auth_method"
        case jwksURI = "jwks_uri"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case frontchannelLogoutURI = "frontchannel_logout_uri"
        case requireSignedRequestObject = "require_signed_request_object"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case tokenExchange = "token_exchange"
        case isPublic = "public"
        case redirectURIs = "redirect_uris"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case idTokenAlgorithm = "id_token_alg"
        case deviceGrant = "device_grant"
        case requireDPoP = "require_dpop"
        case thirdParty = "third_party"
        case logoURI = "logo_uri"
        case homepage = "client_uri"
    }
}

/// `PATCH /admin/v1/clients/{id}`: the fields to change; absent ones stay.
struct AdminClientChange: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys

    var name: String?
    var redirectURIs, postLogoutRedirectURIs, scopes: [String]?
    var idTokenAlgorithm: String?
    var requirePKCE: Bool?
    var deviceGrant: Bool?
    var requireDPoP: Bool?
    var thirdParty: Bool?
    /// An empty string removes the logo or home page.
    var logoURI, homepage: String?
    /// A policy without audiences removes it.
    var tokenExchange: TokenExchangePolicy?
    /// A `private_key_jwt` client's new keys: a URL or the keys (the other is removed).
    var jwksURI: String?
    var jwks: JSONWebKeySet?
    /// An empty string removes it.
    var backchannelLogoutURI, frontchannelLogoutURI: String?
    var requireSignedRequestObject, requirePushedAuthorizationRequests: Bool?
    /// Holds the client to a security profile from now on (it cannot be taken off again: register a new client).
    var profile: SecurityProfile?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, scopes, jwks, profile
        case jwksURI = "jwks_uri"
        case backchannelLogoutURI = "backchannel_logout_uri"
        case frontchannelLogoutURI = "frontchannel_logout_uri"
        case requireSignedRequestObject = "require_signed_request_object"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case tokenExchange = "token_exchange"
        case redirectURIs = "redirect_uris"
        case postLogoutRedirectURIs = "post_logout_redirect_uris"
        case idTokenAlgorithm = "id_token_alg"
        case requirePKCE = "require_pkce"
        case deviceGrant = "device_grant"
        case requireDPoP = "require_dpop"
        case thirdParty = "third_party"
        case logoURI = "logo_uri"
        case homepage = "client_uri"
    }
}

/// A page of a list, with the cursor of the next page when there is one.
struct AdminPage<Item: Encodable & Sendable>: Encodable, Sendable {
    var items: [Item]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }
}

/// A signing key as listed: its public half only.
public struct AdminKey: Codable, Sendable {
    public var kid, algorithm: String
    /// Whether the key signed when it was read.
    public var active: Bool
    public var status: SigningKeyRecord.Status
    public var createdAt: Int64
    public var activatesAt: Int64
    public var retiredAt: Int64?
    public var publishedUntil: Int64?

    /// What the API shows of `key` at `now`.
    public init(_ key: SigningKeyRecord, now: Int64) {
        kid = key.kid
        algorithm = key.algorithm
        status = key.status(at: now)
        active = status == .active
        createdAt = key.createdAt
        activatesAt = key.activatesAt
        retiredAt = key.retiredAt
        publishedUntil = key.publishedUntil
    }

    enum CodingKeys: String, CodingKey {
        case kid, algorithm, active, status
        case createdAt = "created_at"
        case activatesAt = "activates_at"
        case retiredAt = "retired_at"
        case publishedUntil = "published_until"
    }
}

/// `POST /admin/v1/resources` (every member but `id` and `name` optional) and `PATCH /admin/v1/resources/{id}`
/// (members absent stay as they are; `id` may not be sent).
struct AdminResourceBody: ClosedJSONBody, Sendable {
    typealias Members = CodingKeys

    var id: String?
    var name: String?
    var scopes: [Resource.Scope]?
    var tokenFormat: Resource.TokenFormat?
    var tokenAlgorithm: Resource.SigningAlgorithm?
    /// `0` returns to the server's lifetime.
    var accessTokenLifetime: Int64?
    var requireDPoP: Bool?
    var allowedClients, introspectionClients: [String]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, scopes
        case tokenFormat = "token_format"
        case tokenAlgorithm = "token_alg"
        case accessTokenLifetime = "access_token_lifetime"
        case requireDPoP = "require_dpop"
        case allowedClients = "allowed_clients"
        case introspectionClients = "introspection_clients"
    }

    /// `resource` with this body's members in place of its own.
    func applied(to resource: Resource) -> Resource {
        var changed = resource
        if let name { changed.name = name }
        if let scopes { changed.scopes = scopes }
        if let tokenFormat { changed.tokenFormat = tokenFormat }
        if let tokenAlgorithm { changed.tokenAlgorithm = tokenAlgorithm }
        if let accessTokenLifetime { changed.accessTokenLifetime = accessTokenLifetime == 0 ? nil : accessTokenLifetime }
        if let requireDPoP { changed.requiresDPoP = requireDPoP }
        if let allowedClients { changed.allowedClients = allowedClients }
        if let introspectionClients { changed.introspectionClients = introspectionClients }
        return changed
    }
}
