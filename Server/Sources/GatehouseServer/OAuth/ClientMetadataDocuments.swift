import AsyncHTTPClient
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Clients that identify themselves by the URL of their metadata document (the IETF OAuth working group's Client ID
/// Metadata Documents, which MCP clients use), when `client_metadata_documents.enabled`: a `client_id` that is an https
/// URL is fetched — on a public address only, within a size and a time limit, no redirect followed — checked (its
/// `client_id` is its own URL; public, with https or loopback redirect URIs) and kept as a third-party public client
/// until its HTTP caching says to fetch it again (capped by `max_cache_age`).
struct ClientMetadataDocuments: Sendable {
    let clients: ClientStore
    let resources: ResourceStore
    let policy: ClientMetadataDocumentPolicy
    let clock: UnixClock
    let logger: Logger

    /// Why a document cannot be used, in words for the sign-in page's error.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether `clientID` names a metadata document: an https URL (or, for development, http on a loopback host).
    func isDocumentURL(_ clientID: String) -> Bool {
        guard policy.enabled, let url = URLComponents(string: clientID), let host = url.host, !host.isEmpty else { return false }
        return url.scheme == "https" || (policy.allowPrivateAddresses && url.scheme == "http" && LoopbackHost.contains(host))
    }

    /// The client `clientID` names: registered, or its document's cached copy, fetched (again) when needed. `nil` for an
    /// unknown client that is no document URL; a ``Refusal`` when the document cannot be used.
    func client(_ clientID: String) async throws -> Client? {
        let known = try await clients.find(id: clientID)
        guard isDocumentURL(clientID) else { return known }
        if let known {
            guard let expiry = known.metadataDocumentExpiresAt else { return known }  // an operator's client with that id
            if expiry > clock.now() { return known }
        }
        let (document, maxAge) = try await fetch(clientID)
        let client = try await self.client(from: document, url: clientID, cachedFor: maxAge)
        try await clients.upsert(client)
        logger.info("Fetched a client metadata document", metadata: ["client": "\(OutboundHTTP.printable(clientID))"])
        return client
    }

    /// The client `document` describes, checked.
    private func client(from document: Data, url: String, cachedFor maxAge: Int64) async throws -> Client {
        guard let object = try? JSONSerialization.jsonObject(with: document) as? [String: Any] else {
            throw Refusal("The document is not a JSON object.")
        }
        guard object["client_id"] as? String == url else {
            throw Refusal("The document's client_id is not its own URL, \(OutboundHTTP.printable(url)).")
        }
        let metadata: ClientMetadata
        do {
            metadata = try JSONDecoder().decode(ClientMetadata.self, from: document)
        } catch {
            throw Refusal("The document's metadata could not be read: a member has the wrong type.")
        }
        if metadata.tokenEndpointAuthMethod == "private_key_jwt" {
            throw Refusal("private_key_jwt is not offered yet; a client known by its metadata document is public (token_endpoint_auth_method none).")
        }
        var completed = metadata
        completed.tokenEndpointAuthMethod = metadata.tokenEndpointAuthMethod ?? "none"
        let checked: ClientMetadata
        do {
            checked = try ClientMetadataRules.validate(completed, open: true, resourceScopes: Set(try await resources.list().flatMap(\.scopeNames)))
        } catch let error as OAuthError {
            throw Refusal(error.description)
        }
        let now = clock.now()
        var client = Client(
            id: url, name: checked.clientName, redirectURIs: checked.redirectURIs ?? [], postLogoutRedirectURIs: [],
            scopes: ClientMetadataRules.clientScopes(of: checked), idTokenAlgorithm: "RS256", createdAt: now, isThirdParty: true,
            logoURI: checked.logoURI, homepage: checked.clientURI)
        client.registeredDynamically = true
        client.metadataDocumentExpiresAt = now + maxAge
        return client
    }

    /// The document at `url` and how long it may be cached: fetched from a public address (unless development allows
    /// others), no redirect followed, at most `max_bytes`, within `timeout` seconds.
    private func fetch(_ url: String) async throws -> (Data, Int64) {
        guard let components = URLComponents(string: url), let host = components.host else { throw Refusal("The client_id is not a URL.") }
        if !policy.allowedHosts.isEmpty, !policy.allowedHosts.contains(host.lowercased()) {
            throw Refusal("Documents from \(host) are not accepted here.")
        }
        let port = components.port ?? (components.scheme == "https" ? 443 : 80)
        // An IPv6 literal comes in brackets ([::1]); the resolver takes it bare.
        let address = try await Self.resolve(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
        guard policy.allowPrivateAddresses || PublicAddress.contains(address) else {
            throw Refusal("\(host) is on a private, loopback or link-local address; documents come from the public internet only.")
        }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(policy.timeout), read: .seconds(policy.timeout))
        // Connect to the address just checked, not to whatever the name resolves to a moment later (DNS rebinding);
        // the certificate is still checked against the name.
        if let ip = address.ipAddress { configuration.dnsOverride = [host: ip] }
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            let result = try await Self.get(url, with: client, limit: policy.maxBytes, timeout: policy.timeout)
            try await client.shutdown()
            return (result.body, min(policy.maxCacheAge, result.maxAge ?? 0))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static func get(_ url: String, with client: HTTPClient, limit: Int, timeout: Int64) async throws -> (body: Data, maxAge: Int64?) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(timeout))
        } catch {
            throw Refusal(Self.explain(error, timeout: timeout))
        }
        switch response.status.code {
        case 200: break
        case 300..<400: throw Refusal("The document's URL answered with a redirect (\(response.status.code)); the client_id must be the document itself.")
        default: throw Refusal("The document's URL answered \(response.status.code).")
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw Refusal("The document is larger than \(limit) bytes.")
        } catch {
            throw Refusal(Self.explain(error, timeout: timeout))
        }
        return (Data(buffer: body), maxAge(response.headers["Cache-Control"].joined(separator: ",")))
    }

    /// `max-age` of a `Cache-Control` value; `0` for `no-store` or `no-cache`, `nil` when it says nothing.
    static func maxAge(_ cacheControl: String) -> Int64? {
        let directives = cacheControl.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if directives.contains("no-store") || directives.contains("no-cache") { return 0 }
        for directive in directives where directive.hasPrefix("max-age=") {
            return Int64(directive.dropFirst("max-age=".count)).map { max(0, $0) }
        }
        return nil
    }

    private static func explain(_ error: any Error, timeout: Int64) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return "The document did not arrive within \(timeout) seconds."
        }
        return "The document could not be fetched: \(OutboundHTTP.describe(error))."
    }

    /// The first address `host` resolves to, resolved off the event loops.
    private static func resolve(_ host: String, port: Int) async throws -> SocketAddress {
        do {
            return try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: port) }
        } catch {
            throw Refusal("\(host) could not be resolved.")
        }
    }
}
