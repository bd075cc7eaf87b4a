import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Logging

/// Clients that identify themselves by the URL of their metadata document (the IETF OAuth working group's Client ID
/// Metadata Documents, which MCP clients use), when `client_metadata_documents.enabled`: a `client_id` that is an https
/// URL is fetched — on a public address only, within a size and a time limit, no redirect followed — checked (its
/// `client_id` is its own URL; public, with https or loopback redirect URIs) and kept as a third-party public client
/// until its HTTP caching says to fetch it again (capped by `max_cache_age`).
struct ClientMetadataDocuments: Sendable {
    let clients: ClientStore
    let resources: ResourceStore
    let policy: ClientMetadataDocumentPolicy
    /// The profile every client is held to (`fapi2`), if any: a document's client too, or it is refused.
    let profile: SecurityProfile?
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
        var client = try await self.client(from: document, url: clientID, cachedFor: maxAge)
        if let profile {
            client.idTokenAlgorithm = "ES256"
            if let violation = profile.violation(of: client) { throw Refusal(violation) }
            client = profile.applied(to: client)
        }
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
        var completed = metadata
        completed.tokenEndpointAuthMethod = metadata.tokenEndpointAuthMethod ?? "none"
        // A document's client is public, or proves itself with its keys (private_key_jwt): never a shared secret.
        let withKeys = completed.tokenEndpointAuthMethod == "private_key_jwt"
        if withKeys { completed.tokenEndpointAuthMethod = "none" }
        var checked: ClientMetadata
        do {
            if withKeys {
                guard (metadata.jwksURI == nil) != (metadata.jwks == nil) else {
                    throw Refusal("private_key_jwt needs the client's public keys: jwks_uri or jwks, one of them.")
                }
                try ClientMetadataRules.validateKeys(jwksURI: metadata.jwksURI, jwks: metadata.jwks, loopbackKeys: policy.allowPrivateAddresses)
            }
            // The rest as an open registration's: a public client's redirect URIs and names.
            var open = completed
            open.jwksURI = nil
            open.jwks = nil
            checked = try ClientMetadataRules.validate(open, open: true, resourceScopes: try await resources.scopeNames())
            if withKeys {
                checked.tokenEndpointAuthMethod = "private_key_jwt"
                checked.jwksURI = metadata.jwksURI
                checked.jwks = metadata.jwks
            }
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
        client.jwksURI = checked.jwksURI
        client.jwks = checked.jwks
        return client
    }

    /// The document at `url` and how long it may be cached: fetched from a public address (unless development allows
    /// others), no redirect followed, at most `max_bytes`, within `timeout` seconds.
    private func fetch(_ url: String) async throws -> (Data, Int64) {
        guard let host = URLComponents(string: url)?.host else { throw Refusal("The client_id is not a URL.") }
        if !policy.allowedHosts.isEmpty, !policy.allowedHosts.contains(host.lowercased()) {
            throw Refusal("Documents from \(host) are not accepted here.")
        }
        do {
            let fetched = try await GuardedFetch(allowPrivateAddresses: policy.allowPrivateAddresses, timeout: policy.timeout)
                .get(url, limit: policy.maxBytes, what: "document")
            return (fetched.body, min(policy.maxCacheAge, fetched.maxAge ?? 0))
        } catch let refusal as GuardedFetch.Refusal {
            throw Refusal(refusal.description)
        }
    }
}
