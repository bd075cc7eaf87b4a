import Foundation
import Gatehouse
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks the access tokens a Swift API receives from clients of Gatehouse: JWT access tokens (RFC 9068) offline
/// against the issuer's published keys (fetched once, again when a token names a key they lack: a rotation), opaque
/// ones by introspection (RFC 7662); the audience, issuer, expiry and scopes; the DPoP proof of a bound token
/// (RFC 9449). It answers refusals with the `WWW-Authenticate` challenge that points clients at its protected-resource
/// metadata (RFC 9728), which it also describes.
///
/// Framework-neutral: adapters (the Hummingbird middleware in `GatehouseResourceServerHummingbird`) read the request
/// into a ``ResourceRequest`` and answer a ``ResourceAccessError`` with its status, challenge and body.
public final class ResourceServer: Sendable {
    /// What the API says about itself.
    public let configuration: ResourceServerConfiguration
    private let transport: any HTTPTransport
    private let issuerState: IssuerState
    private let proofs: DPoPProofCheck

    /// The algorithms JWT access tokens may be signed with; `none` and HMAC never are.
    public static let tokenAlgorithms: Set<String> = ["RS256", "ES256"]

    /// A resource server for `configuration`, reaching the issuer with `transport`; `keys` replaces the issuer's
    /// published keys (tests, pinned keys).
    public init(configuration: ResourceServerConfiguration, transport: any HTTPTransport = URLSessionTransport(), keys: (any KeySetSource)? = nil) {
        self.configuration = configuration
        self.transport = transport
        issuerState = IssuerState(issuer: configuration.issuer, transport: transport, keys: keys)
        proofs = DPoPProofCheck(lifetime: configuration.proofLifetime, leeway: configuration.leeway)
    }

    /// Checks the request's token and returns what it allows, when it carries every scope of `scopes`.
    /// - Throws: ``ResourceAccessError``: answer it with its ``ResourceAccessError/status``, ``challenge(for:)`` and body.
    public func authorize(
        _ request: ResourceRequest, requiring scopes: [String] = [], now: Date = Date()
    ) async throws(ResourceAccessError)
        -> AccessGrant
    {
        let (scheme, token) = try Self.credentials(request.authorization, dpopRequired: configuration.requiresDPoP)
        let grant: AccessGrant
        if let jws = CompactJWS(token) {
            grant = try await verifyJWT(jws, dpop: scheme == .dpop, now: now)
        } else {
            grant = try await introspect(token, dpop: scheme == .dpop, now: now)
        }
        // A bound token goes only with a proof by its key, under the DPoP scheme (RFC 9449 §7.1); a bearer token never
        // under it.
        if let thumbprint = grant.keyThumbprint {
            guard scheme == .dpop else {
                throw ResourceAccessError(.invalidToken, "The token is bound to a DPoP key: send it as Authorization: DPoP with a DPoP proof.", dpop: true)
            }
            try await proofs.check(request.dpop, method: request.method, url: request.url, token: token, thumbprint: thumbprint, now: now)
        } else if scheme == .dpop {
            throw ResourceAccessError(.invalidToken, "The token is not bound to a DPoP key: send it as a Bearer token.", dpop: true)
        } else if configuration.requiresDPoP {
            throw ResourceAccessError(.invalidToken, "This API accepts only DPoP-bound tokens.", dpop: true)
        }
        let missing = scopes.filter { !grant.scopes.contains($0) }
        guard missing.isEmpty else {
            throw ResourceAccessError(
                .insufficientScope, "The token lacks the scope \(missing.joined(separator: " ")).", requiredScopes: scopes, dpop: scheme == .dpop)
        }
        return grant
    }

    /// The `WWW-Authenticate` value for `error` (RFC 6750 §3, RFC 9449 §7.1), naming the metadata (RFC 9728 §5.1).
    public func challenge(for error: ResourceAccessError) -> String {
        var parameters: [(String, String)] = []
        if let code = error.code {
            parameters.append(("error", code.rawValue))
            parameters.append(("error_description", error.description))
        }
        if !error.requiredScopes.isEmpty { parameters.append(("scope", error.requiredScopes.joined(separator: " "))) }
        if let url = metadataURL { parameters.append(("resource_metadata", url.absoluteString)) }
        if error.dpop || configuration.requiresDPoP {
            parameters.insert(("algs", DPoPProofCheck.algorithms.sorted().joined(separator: " ")), at: 0)
        }
        let rendered = parameters.map { name, value in
            "\(name)=\"\(value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""
        }
        let scheme = error.dpop || configuration.requiresDPoP ? "DPoP" : "Bearer"
        return rendered.isEmpty ? scheme : scheme + " " + rendered.joined(separator: ", ")
    }

    /// The API's protected-resource metadata (RFC 9728).
    public var metadata: ProtectedResourceMetadata {
        ProtectedResourceMetadata(
            resource: configuration.resource, authorizationServers: [configuration.issuerString],
            scopesSupported: configuration.scopesSupported.isEmpty ? nil : configuration.scopesSupported, resourceName: configuration.resourceName,
            dpopSigningAlgValuesSupported: DPoPProofCheck.algorithms.sorted(), dpopBoundAccessTokensRequired: configuration.requiresDPoP ? true : nil)
    }

    /// Where the metadata is served on the API: `/.well-known/oauth-protected-resource` followed by the resource
    /// identifier's path (RFC 9728 §3.1).
    public var metadataPath: String {
        let path = configuration.baseURL.map { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.path ?? "" } ?? ""
        return "/.well-known/oauth-protected-resource" + (path == "/" ? "" : path)
    }

    /// The metadata's full URL, when the API's address is known (``ResourceServerConfiguration/publicURL``).
    public var metadataURL: URL? {
        guard let base = configuration.baseURL, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        components.path = metadataPath
        components.query = nil
        components.fragment = nil
        return components.url
    }

    /// The URL a request to `path` (and `query`) has, as clients address the API: what DPoP proofs name.
    public func requestURL(path: String, query: String? = nil) -> URL? {
        guard let base = configuration.baseURL, var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        components.percentEncodedPath = path
        components.percentEncodedQuery = query
        return components.url
    }

    // MARK: Tokens

    private enum Scheme { case bearer, dpop }

    /// The token of an `Authorization` header and its scheme.
    private static func credentials(_ header: String?, dpopRequired: Bool) throws(ResourceAccessError) -> (Scheme, String) {
        guard let header, !header.isEmpty else { throw ResourceAccessError(nil, "No access token was sent.", dpop: dpopRequired) }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { throw ResourceAccessError(.invalidRequest, "The Authorization header has no token.") }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.utf8.count <= 16 * 1024, !token.contains(" ") else {
            throw ResourceAccessError(.invalidRequest, "The Authorization header's token is malformed.")
        }
        switch parts[0].lowercased() {
        case "bearer": return (.bearer, token)
        case "dpop": return (.dpop, token)
        default: throw ResourceAccessError(.invalidRequest, "Send the access token as Authorization: Bearer or DPoP.")
        }
    }

    private func verifyJWT(_ jws: CompactJWS, dpop: Bool, now: Date) async throws(ResourceAccessError) -> AccessGrant {
        func invalid(_ description: String) -> ResourceAccessError { ResourceAccessError(.invalidToken, description, dpop: dpop) }
        guard Self.tokenAlgorithms.contains(jws.algorithm) else { throw invalid("The token's algorithm \(jws.algorithm) is not accepted.") }
        // RFC 9068 §4: an ID token, or any other JWT, is not an access token.
        guard let type = jws.header["typ"] as? String, ["at+jwt", "application/at+jwt"].contains(type.lowercased()) else {
            throw invalid("The token is not a JWT access token (typ at+jwt).")
        }
        let key: JSONWebKey?
        do {
            key = try await issuerState.keys().signingKey(id: jws.header["kid"] as? String, algorithm: jws.algorithm)
        } catch {
            throw ResourceAccessError(.temporarilyUnavailable, "The issuer's keys could not be read: \(error).", dpop: dpop)
        }
        guard let key, (try? jws.isSigned(by: key)) == true else { throw invalid("The token's signature is not the issuer's.") }
        let claims = jws.payload
        guard claims["iss"] as? String == configuration.issuerString else { throw invalid("The token was issued by another issuer.") }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard audiences.contains(configuration.resource) else { throw invalid("The token is for another resource, not \(configuration.resource).") }
        guard let expiry = Self.seconds(claims["exp"]), expiry > now.timeIntervalSince1970 - configuration.leeway else {
            throw invalid("The token has expired.")
        }
        if let notBefore = Self.seconds(claims["nbf"]), notBefore > now.timeIntervalSince1970 + configuration.leeway {
            throw invalid("The token is not valid yet.")
        }
        guard let subject = claims["sub"] as? String, let clientID = claims["client_id"] as? String else {
            throw invalid("The token names no subject or client.")
        }
        let confirmation = claims["cnf"] as? [String: Any]
        return AccessGrant(
            subject: subject, clientID: clientID, scopes: Set((claims["scope"] as? String ?? "").split(separator: " ").map(String.init)),
            expiresAt: Date(timeIntervalSince1970: expiry), authenticatedAt: Self.seconds(claims["auth_time"]).map(Date.init(timeIntervalSince1970:)),
            keyThumbprint: confirmation?["jkt"] as? String, actors: Self.actors(claims["act"]), format: .jwt)
    }

    private func introspect(_ token: String, dpop: Bool, now: Date) async throws(ResourceAccessError) -> AccessGrant {
        guard let credentials = configuration.introspection else {
            throw ResourceAccessError(.invalidToken, "The token is not a JWT access token, and this API introspects none.", dpop: dpop)
        }
        let answer: [String: Any]
        do {
            let endpoint = try await issuerState.introspectionEndpoint()
            var request = URLRequest(url: endpoint)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let basic = Data("\(Self.formEncoded(credentials.clientID)):\(Self.formEncoded(credentials.clientSecret))".utf8).base64EncodedString()
            request.setValue("Basic \(basic)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data("token=\(Self.formEncoded(token))".utf8)
            let (data, response) = try await transport.send(request)
            guard response.statusCode == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ResourceAccessError(.temporarilyUnavailable, "Introspection answered \(response.statusCode).", dpop: dpop)
            }
            answer = object
        } catch let error as ResourceAccessError {
            throw error
        } catch {
            throw ResourceAccessError(.temporarilyUnavailable, "The issuer could not be asked about the token: \(error).", dpop: dpop)
        }
        func invalid(_ description: String) -> ResourceAccessError { ResourceAccessError(.invalidToken, description, dpop: dpop) }
        guard answer["active"] as? Bool == true else { throw invalid("The token is invalid, expired or revoked.") }
        let audiences = (answer["aud"] as? String).map { [$0] } ?? (answer["aud"] as? [String] ?? [])
        guard audiences.contains(configuration.resource) else { throw invalid("The token is for another resource, not \(configuration.resource).") }
        guard answer["token_type"] as? String != "refresh_token" else { throw invalid("A refresh token is not an access token.") }
        guard let expiry = Self.seconds(answer["exp"]), expiry > now.timeIntervalSince1970 - configuration.leeway,
            let subject = answer["sub"] as? String, let clientID = answer["client_id"] as? String
        else { throw invalid("The token has expired, or names no subject or client.") }
        let confirmation = answer["cnf"] as? [String: Any]
        return AccessGrant(
            subject: subject, clientID: clientID, scopes: Set((answer["scope"] as? String ?? "").split(separator: " ").map(String.init)),
            expiresAt: Date(timeIntervalSince1970: expiry), keyThumbprint: confirmation?["jkt"] as? String, actors: Self.actors(answer["act"]),
            format: .opaque)
    }

    /// A JSON number of seconds.
    private static func seconds(_ value: Any?) -> TimeInterval? {
        (value as? NSNumber)?.doubleValue
    }

    /// The `act` chain, most recent first.
    private static func actors(_ value: Any?) -> [String] {
        guard let object = value as? [String: Any], let subject = object["sub"] as? String else { return [] }
        return [subject] + actors(object["act"])
    }

    /// `text` as an `application/x-www-form-urlencoded` value (RFC 6749 §2.3.1 encodes Basic credentials so too).
    private static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))
            ?? text
    }
}

/// The issuer's metadata and keys, read once and kept.
private actor IssuerState {
    private let issuer: URL
    private let transport: any HTTPTransport
    private var configuredKeys: (any KeySetSource)?
    private var metadata: OpenIDProviderMetadata?

    init(issuer: URL, transport: any HTTPTransport, keys: (any KeySetSource)?) {
        self.issuer = issuer
        self.transport = transport
        configuredKeys = keys
    }

    /// The issuer's authorization server metadata (RFC 8414), whose `issuer` must be the configured one.
    private func providerMetadata() async throws -> OpenIDProviderMetadata {
        if let metadata { return metadata }
        let discovery = ProviderDiscovery(
            issuer: issuer, documentURL: issuer.appendingPathComponent(".well-known/oauth-authorization-server"), transport: transport)
        let read = try await discovery.metadata()
        metadata = read
        return read
    }

    func keys() async throws -> any KeySetSource {
        if let configuredKeys { return configuredKeys }
        guard let url = URL(string: try await providerMetadata().jwksURI) else { throw DiscoveryError.malformedDocument("jwks_uri is not a URL") }
        let keys = RemoteKeySet(url: url, transport: transport)
        configuredKeys = keys
        return keys
    }

    func introspectionEndpoint() async throws -> URL {
        guard let url = URL(string: try await providerMetadata().introspectionEndpoint) else {
            throw DiscoveryError.malformedDocument("introspection_endpoint is not a URL")
        }
        return url
    }
}
