import Foundation
import GatehouseFoundation
import GatehouseProtocol
import NIOCore

/// What a client that registers itself may say about itself (RFC 7591 §2), checked and completed with the server's
/// defaults. Errors are RFC 7591's: `invalid_redirect_uri` and `invalid_client_metadata`, saying which member is wrong.
package enum ClientMetadataRules {
    /// The token endpoint authentication methods a registering client may choose.
    package static let authenticationMethods = ClientAuthenticationMethod.allCases.map(\.rawValue)
    package static let grantTypes = ["authorization_code", "refresh_token"]
    /// At most this many redirect URIs, each at most 2048 bytes.
    package static let maximumRedirectURIs = 10
    /// The server's own scopes a third party may be registered for: a client that registered itself never manages
    /// accounts (`account`) nor the server.
    package static let grantableScopes = ClientRegistrationRules.userScopes.filter { $0 != "account" }

    /// `metadata` checked and completed: defaults for absent members. `open`: registered without an initial access
    /// token, so only a public client with https or loopback redirect URIs. `resourceScopes`: the scopes registered
    /// resources accept, which a client may name too.
    /// `loopbackKeys` lets `jwks_uri` be plain http on a loopback host (development only).
    package static func validate(
        _ metadata: ClientMetadata, open: Bool, resourceScopes: Set<String>, loopbackKeys: Bool = false
    ) throws -> ClientMetadata {
        var checked = metadata
        try validateKeys(jwksURI: metadata.jwksURI, jwks: nil, loopbackKeys: loopbackKeys)
        let method = metadata.tokenEndpointAuthMethod ?? "client_secret_basic"
        guard authenticationMethods.contains(method) else {
            throw OAuthError(
                .invalidClientMetadata,
                "token_endpoint_auth_method \(method.prefix(40)) is not supported; use \(authenticationMethods.joined(separator: ", ")).")
        }
        if open && method != "none" {
            throw OAuthError(
                .invalidClientMetadata,
                "Without an initial access token only a public client may register: token_endpoint_auth_method must be none.")
        }
        checked.tokenEndpointAuthMethod = method
        if method == "private_key_jwt" {
            guard (metadata.jwksURI == nil) != (metadata.jwks == nil) else {
                throw OAuthError(.invalidClientMetadata, "private_key_jwt needs the client's public keys: jwks_uri or jwks, one of them.")
            }
            try validateKeys(jwksURI: metadata.jwksURI, jwks: metadata.jwks, loopbackKeys: loopbackKeys)
        } else if metadata.jwksURI != nil || metadata.jwks != nil {
            throw OAuthError(.invalidClientMetadata, "jwks_uri and jwks are for token_endpoint_auth_method private_key_jwt.")
        }
        if metadata.requireSignedRequestObject == true, method != "private_key_jwt", method != "client_secret_jwt" {
            throw OAuthError(
                .invalidClientMetadata, "require_signed_request_object needs token_endpoint_auth_method private_key_jwt or client_secret_jwt to sign with.")
        }

        let grants = metadata.grantTypes ?? ["authorization_code"]
        guard !grants.isEmpty, grants.allSatisfy(grantTypes.contains), grants.contains("authorization_code") else {
            throw OAuthError(.invalidClientMetadata, "grant_types may hold authorization_code (required) and refresh_token only.")
        }
        checked.grantTypes = grants
        let responses = metadata.responseTypes ?? ["code"]
        guard responses == ["code"] else { throw OAuthError(.invalidClientMetadata, "response_types must be [\"code\"].") }
        checked.responseTypes = responses

        guard let redirects = metadata.redirectURIs, !redirects.isEmpty else {
            throw OAuthError(.invalidRedirectURI, "redirect_uris is required: the authorization code grant sends the browser back to one.")
        }
        guard redirects.count <= maximumRedirectURIs else {
            throw OAuthError(.invalidRedirectURI, "Register at most \(maximumRedirectURIs) redirect URIs.")
        }
        for uri in redirects {
            guard uri.utf8.count <= 2048 else { throw OAuthError(.invalidRedirectURI, "A redirect URI is longer than 2048 bytes.") }
            do {
                try ClientRegistrationRules.validateRedirectURI(uri)
            } catch let error as ConfigurationError {
                throw OAuthError(.invalidRedirectURI, error.description)
            }
            if open, let scheme = URL(string: uri)?.scheme?.lowercased(), scheme != "https" && scheme != "http" {
                throw OAuthError(.invalidRedirectURI, "Without an initial access token a redirect URI must use https or a loopback address, not \(scheme).")
            }
        }

        if let name = metadata.clientName {
            // Shown on consent as the client's name: nothing that would make it read as another's.
            guard (1...200).contains(name.count), !name.unicodeScalars.contains(where: \.changesDisplay) else {
                throw OAuthError(.invalidClientMetadata, "client_name must be 1 to 200 characters without line breaks or bidirectional controls.")
            }
        }
        for (member, value) in [
            ("logo_uri", metadata.logoURI), ("client_uri", metadata.clientURI), ("policy_uri", metadata.policyURI), ("tos_uri", metadata.termsOfServiceURI),
        ] {
            guard let value else { continue }
            do {
                try ClientRegistrationRules.validateWebPage(value, named: member)
            } catch let error as ConfigurationError {
                throw OAuthError(.invalidClientMetadata, error.description)
            }
        }
        for (member, value) in [("backchannel_logout_uri", metadata.backchannelLogoutURI), ("frontchannel_logout_uri", metadata.frontchannelLogoutURI)] {
            guard let value else { continue }
            do {
                try ClientRegistrationRules.validateLogoutURI(value, named: member)
            } catch let error as ConfigurationError {
                throw OAuthError(.invalidClientMetadata, error.description)
            }
            // The server posts to one, the person's browser loads the other at sign-out: a stranger's client names
            // neither this machine nor a private network.
            guard reachesOnlyThePublicWeb(value) else {
                throw OAuthError(.invalidClientMetadata, "\(member) must be an https address on the public internet, not a loopback or private one.")
            }
        }
        if let contacts = metadata.contacts {
            guard contacts.count <= 5, contacts.allSatisfy({ $0.utf8.count <= 254 && $0.contains("@") && !$0.contains(where: \.isWhitespace) }) else {
                throw OAuthError(.invalidClientMetadata, "contacts must be at most 5 email addresses.")
            }
        }
        for (member, value) in [("software_id", metadata.softwareID), ("software_version", metadata.softwareVersion)] {
            if let value, value.utf8.count > 200 { throw OAuthError(.invalidClientMetadata, "\(member) is longer than 200 bytes.") }
        }

        let scopes = (metadata.scope ?? ClientRegistrationRules.defaultScopes.joined(separator: " ")).split(separator: " ").map(String.init)
        if let unknown = scopes.first(where: { !grantableScopes.contains($0) && !resourceScopes.contains($0) }) {
            throw OAuthError(.invalidClientMetadata, "The scope \(unknown.prefix(80)) cannot be registered here.")
        }
        // Refresh tokens come with `offline_access`: registered only beside the refresh_token grant.
        checked.scope = scopes.filter { $0 != "offline_access" || grants.contains("refresh_token") }.joined(separator: " ")
        return checked
    }

    /// A client's keys for `private_key_jwt`: `jwks_uri` an https URL (first, whatever the method: a key set fetched over
    /// plain http would let anyone on the path swap it; http on loopback with `loopbackKeys`, for development), `jwks`
    /// 1 to 20 public RSA, EC or OKP keys.
    /// Whether `uri` is https to a name, or to a public IP address: somewhere a self-registered client may have the
    /// server or the person's browser go (never `localhost`, loopback, private, link-local or other special addresses;
    /// a name is resolved where it is used, and the server's own fetches check the address then).
    package static func reachesOnlyThePublicWeb(_ uri: String) -> Bool {
        guard let url = URL(string: uri), url.scheme?.lowercased() == "https",
            let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased(), !host.isEmpty
        else { return false }
        if LoopbackHost.contains(host) || host.hasSuffix(".localhost") { return false }
        if let address = try? SocketAddress(ipAddress: host, port: 443) { return PublicAddress.contains(address) }
        return true
    }

    package static func validateKeys(jwksURI: String?, jwks: JSONWebKeySet?, loopbackKeys: Bool) throws {
        if let jwksURI {
            guard let url = URL(string: jwksURI), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
                scheme == "https" || (loopbackKeys && scheme == "http" && LoopbackHost.contains(host)), jwksURI.utf8.count <= 2048
            else {
                throw OAuthError(.invalidClientMetadata, "jwks_uri must be an https URL.")
            }
        }
        if let jwks {
            guard (1...20).contains(jwks.keys.count), jwks.keys.allSatisfy({ $0.thumbprint != nil }) else {
                throw OAuthError(.invalidClientMetadata, "jwks must hold 1 to 20 public RSA, EC or OKP keys.")
            }
        }
    }

    /// The server's own scopes of validated `metadata`: what the client's record allows; a resource's scopes are
    /// allowed through the resource the request names.
    package static func clientScopes(of metadata: ClientMetadata) -> [String] {
        (metadata.scope ?? "").split(separator: " ").map(String.init).filter(grantableScopes.contains)
    }
}
