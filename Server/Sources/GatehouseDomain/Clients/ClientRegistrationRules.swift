import Foundation
import GatehouseFoundation
import GatehouseProtocol

/// What a client registration must satisfy before it is stored.
public enum ClientRegistrationRules {
    /// Scopes Gatehouse knows.
    public static let knownScopes = userScopes + adminScopes
    /// The scopes of tokens that act for a user, as discovery lists them.
    public static let userScopes = ["openid", "profile", "email", "phone", "address", "offline_access", "account"]
    /// The admin API's scopes: granted only to a client acting for itself (client credentials), never through a user.
    public static let adminScopes = ["gatehouse:admin", "gatehouse:admin:read"]
    public static let defaultScopes = ["openid", "profile", "email", "offline_access"]
    public static let idTokenAlgorithms = ["RS256", "ES256"]
    /// A supplied client secret must be long enough that a fast hash is safe storage.
    public static let minimumSecretLength = 32

    public static func validateClientID(_ id: String) throws {
        let allowed = id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
        guard (1...128).contains(id.count), allowed else {
            throw ConfigurationError("The client id \"\(id)\" is not valid: use 1 to 128 letters, digits, '.', '_' or '-'.")
        }
    }

    /// An absolute URI without a fragment (RFC 6749 §3.1.2); `http` only for loopback hosts.
    /// Custom schemes (`com.example.app:/callback`) are allowed for native apps.
    public static func validateRedirectURI(_ uri: String) throws {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), !uri.contains(where: { $0.isWhitespace }) else {
            throw ConfigurationError("The redirect URI \"\(uri)\" is not an absolute URI.")
        }
        guard url.fragment == nil else {
            throw ConfigurationError("The redirect URI \"\(uri)\" must not contain a fragment (#…).")
        }
        if let port = URLComponents(string: uri)?.port, !Client.portRange.contains(port) {
            throw ConfigurationError("The redirect URI \"\(uri)\" names the port \(port); a port is 1 to 65535 (leave a loopback one out to allow any).")
        }
        switch scheme {
        case "https":
            guard url.host?.isEmpty == false else { throw ConfigurationError("The redirect URI \"\(uri)\" has no host.") }
        case "http":
            guard let host = url.host, LoopbackHost.contains(host) else {
                throw ConfigurationError("The redirect URI \"\(uri)\" uses plain http on a non-loopback host; use https.")
            }
        case "javascript", "data", "file", "vbscript":
            throw ConfigurationError("The redirect URI \"\(uri)\" uses the forbidden scheme \(scheme).")
        default:
            guard scheme.contains(".") else {
                throw ConfigurationError(
                    "The redirect URI \"\(uri)\" uses the scheme \(scheme); native apps must use a reverse-domain scheme such as com.example.app.")
            }
        }
    }

    /// A third-party client's logo or home page (`logo_uri`, `client_uri`): an https URL (http only on a loopback
    /// host), shown to people on the consent node, so never a script or a data URL.
    public static func validateWebPage(_ uri: String, named name: String) throws {
        guard uri.utf8.count <= 2048, let url = URL(string: uri), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            !uri.contains(where: { $0.isWhitespace })
        else {
            throw ConfigurationError("The \(name) \"\(uri.prefix(80))\" is not an absolute https URL of at most 2048 bytes.")
        }
        guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
            throw ConfigurationError("The \(name) \"\(uri.prefix(80))\" must use https (http only on a loopback host).")
        }
    }

    /// A client's back- or front-channel logout URI: an absolute https URL (http only on a loopback host) without a
    /// fragment (OpenID Connect Back-Channel Logout 1.0 §2.2, Front-Channel Logout 1.0 §2).
    public static func validateLogoutURI(_ uri: String, named name: String) throws {
        try validateWebPage(uri, named: name)
        guard URL(string: uri)?.fragment == nil else { throw ConfigurationError("The \(name) \"\(uri.prefix(80))\" must not contain a fragment (#…).") }
    }

    public static func validateScopes(_ scopes: [String]) throws {
        if let unknown = scopes.first(where: { !knownScopes.contains($0) }) {
            throw ConfigurationError("Unknown scope \"\(unknown)\"; known scopes are \(knownScopes.joined(separator: ", ")).")
        }
    }

    /// A token exchange policy: at least one audience, each a resource identifier; scopes are scope tokens. A public
    /// client cannot have one.
    public static func validateTokenExchange(_ policy: TokenExchangePolicy, isPublic: Bool) throws {
        guard !isPublic else { throw ConfigurationError("Only a confidential client may exchange tokens.") }
        guard !policy.audiences.isEmpty, policy.audiences.count <= 50 else {
            throw ConfigurationError("A token exchange policy names 1 to 50 audiences (resource identifiers).")
        }
        for audience in policy.audiences { try ResourceRules.validateIdentifier(audience) }
        for scope in policy.scopes { try ResourceRules.validateScope(Resource.Scope(name: scope, description: "exchanged")) }
        for issuer in policy.subjectIssuers {
            guard let url = URL(string: issuer), let scheme = url.scheme, let host = url.host,
                scheme == "https" || (scheme == "http" && LoopbackHost.contains(host))
            else { throw ConfigurationError("The subject issuer \"\(issuer.prefix(80))\" must be an identity provider's https issuer.") }
        }
        guard policy.delegation || policy.impersonation else {
            throw ConfigurationError("A token exchange policy allows delegation, impersonation or both.")
        }
    }

    /// What a client's method of authentication needs: `private_key_jwt` its public keys, at a URL (https, or http
    /// on a loopback host) or given, one of the two; every other method no keys.
    public static func validateAuthentication(_ method: ClientAuthenticationMethod, jwksURI: String?, jwks: JSONWebKeySet?) throws {
        guard method == .privateKeyJWT else {
            guard jwksURI == nil, jwks == nil else { throw ConfigurationError("jwks_uri and jwks are for a client that authenticates with private_key_jwt.") }
            return
        }
        guard (jwksURI == nil) != (jwks == nil) else {
            throw ConfigurationError("A private_key_jwt client needs its public keys: a JWKS URL or the keys themselves, one of the two.")
        }
        do {
            try ClientMetadataRules.validateKeys(jwksURI: jwksURI, jwks: jwks, loopbackKeys: true)
        } catch let error as OAuthError {
            throw ConfigurationError(error.description)
        }
    }

    public static func validateSecret(_ secret: String) throws {
        guard secret.count >= minimumSecretLength else {
            throw ConfigurationError("The client secret must be at least \(minimumSecretLength) characters; omit it to have one generated.")
        }
    }

    public static func validateAlgorithm(_ algorithm: String) throws {
        guard idTokenAlgorithms.contains(algorithm) else {
            throw ConfigurationError("The ID token algorithm must be one of \(idTokenAlgorithms.joined(separator: ", ")), not \(algorithm).")
        }
    }
}
