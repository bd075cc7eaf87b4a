import Foundation
import Gatehouse
import GatehouseFoundation
import GatehouseProtocol

/// Where a provider's endpoints are: configured, or read from its discovery document (cached for an hour, so a
/// provider's outage after that shows at the next sign-in and not at start).
package struct UpstreamEndpoints: Sendable, Equatable {
    package var issuer: String?
    package var authorization: String
    package var token: String
    package var userinfo: String?
    package var jwks: String?
    /// Whether the provider names itself in its answers (`iss`, RFC 9207), which is then required.
    package var returnsIssuer = false

    /// The endpoints of `provider`: its configuration where complete, else discovery from its issuer.
    package static func resolve(_ provider: IdentityProvider) async throws(FederationError) -> UpstreamEndpoints {
        if let authorization = provider.authorizationEndpoint, let token = provider.tokenEndpoint,
            provider.kind == .oauth2 || provider.jwksURI != nil
        {
            return UpstreamEndpoints(
                issuer: provider.issuer, authorization: authorization, token: token, userinfo: provider.userinfoEndpoint, jwks: provider.jwksURI)
        }
        let discovered = try await discover(provider)
        return UpstreamEndpoints(
            issuer: discovered.issuer, authorization: provider.authorizationEndpoint ?? discovered.authorization,
            token: provider.tokenEndpoint ?? discovered.token, userinfo: provider.userinfoEndpoint ?? discovered.userinfo,
            jwks: provider.jwksURI ?? discovered.jwks, returnsIssuer: discovered.returnsIssuer)
    }

    /// Reads `issuer/.well-known/openid-configuration` and checks what an OpenID provider must say: its issuer
    /// exactly (OpenID Connect Discovery §4.3), the endpoints, the code flow, and a signing algorithm Gatehouse accepts.
    package static func discover(_ provider: IdentityProvider) async throws(FederationError) -> UpstreamEndpoints {
        guard let issuer = provider.issuer else { throw .unavailable(provider.name, "no issuer is configured") }
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let url = base + "/.well-known/openid-configuration"
        let http = UpstreamHTTP(provider: provider)
        let (status, document) = try await http.json(UpstreamHTTP.get(url)) { .unavailable(provider.name, $0) }
        guard status == 200 else { throw .unavailable(provider.name, "\(url) answered HTTP \(status)") }
        let problem = { (text: String) in FederationError.unavailable(provider.name, "the discovery document at \(url) \(text)") }
        guard let named = document["issuer"] as? String, named == issuer else {
            throw problem("names the issuer \(document["issuer"] as? String ?? "nothing"), not \(issuer)")
        }
        guard let authorization = document["authorization_endpoint"] as? String, let token = document["token_endpoint"] as? String,
            let jwks = document["jwks_uri"] as? String
        else { throw problem("lacks authorization_endpoint, token_endpoint or jwks_uri") }
        if let types = document["response_types_supported"] as? [String], !types.contains("code") {
            throw problem("does not offer the authorization code flow")
        }
        if let algorithms = document["id_token_signing_alg_values_supported"] as? [String],
            algorithms.allSatisfy({ !IDTokenValidator.supportedAlgorithms.contains($0) })
        {
            throw problem("signs ID tokens only with \(algorithms.joined(separator: ", ")); Gatehouse accepts RS256 and ES256")
        }
        return UpstreamEndpoints(
            issuer: named, authorization: authorization, token: token, userinfo: document["userinfo_endpoint"] as? String, jwks: jwks,
            returnsIssuer: document["authorization_response_iss_parameter_supported"] as? Bool ?? false)
    }
}

/// Every provider's endpoints and keys, cached: discovery is read once an hour, keys again when a token names a new one.
package actor UpstreamDirectory {
    private var endpoints: [String: (value: UpstreamEndpoints, until: Int64)] = [:]
    private var keySets: [String: UpstreamKeySet] = [:]
    private let clock: UnixClock
    package static let lifetime: Int64 = 3600

    package init(clock: UnixClock) {
        self.clock = clock
    }

    package func endpoints(for provider: IdentityProvider) async throws(FederationError) -> UpstreamEndpoints {
        let now = clock.now()
        if let cached = endpoints[provider.id], cached.until > now { return cached.value }
        let resolved = try await UpstreamEndpoints.resolve(provider)
        endpoints[provider.id] = (resolved, now + Self.lifetime)
        return resolved
    }

    package func keySet(for provider: IdentityProvider, url: String) -> UpstreamKeySet {
        if let known = keySets[provider.id], known.url == url { return known }
        let made = UpstreamKeySet(provider: provider, url: url)
        keySets[provider.id] = made
        return made
    }
}

/// A provider's JWKS, fetched with the provider's timeout and cached until a token names a key it lacks (then fetched
/// again, at most once within ``KeySetRefetchLimit/interval``).
package actor UpstreamKeySet: KeySetSource {
    package nonisolated let url: String
    private let provider: IdentityProvider
    private var cached: JSONWebKeySet?
    private var refetches = KeySetRefetchLimit()

    package init(provider: IdentityProvider, url: String) {
        self.provider = provider
        self.url = url
    }

    package func keySet(refresh: Bool) async throws -> JSONWebKeySet {
        if let cached, !refresh || !refetches.admit() { return cached }
        let (status, body) = try await UpstreamHTTP(provider: provider).send(UpstreamHTTP.get(url))
        guard status == 200, let keys = try? JSONDecoder().decode(JSONWebKeySet.self, from: body) else {
            throw FederationError.unavailable(provider.name, "the key set at \(url) answered HTTP \(status) without a readable JWKS")
        }
        cached = keys
        return keys
    }
}
