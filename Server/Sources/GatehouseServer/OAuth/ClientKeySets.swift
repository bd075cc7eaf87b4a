import Foundation
import Gatehouse
import GatehouseDomain
import GatehouseProtocol

/// The public keys of clients that authenticate with a key (`private_key_jwt`): the keys registered with the client, or
/// those its `jwks_uri` publishes, fetched like any URL a stranger names (``GuardedFetch``), kept a few minutes, and
/// fetched again when an assertion names a key they lack (the client rotated; at most once within
/// ``KeySetRefetchLimit/interval``).
actor ClientKeySets {
    /// Fetches for clients that registered themselves or are known by their metadata document: strangers' URLs.
    private let fetch: GuardedFetch
    /// Fetches for clients an operator registered, whose key set may be on the operator's own network; the same
    /// limits of size and time.
    private let operatorFetch: GuardedFetch
    private var cached: [String: (keys: JSONWebKeySet, until: Date)] = [:]
    /// Per URL: an assertion naming a key the set lacks fetches it again at most once within the limit's interval.
    private var refetches: [String: KeySetRefetchLimit] = [:]
    /// Keys published at a URL are kept this long before they are fetched again.
    static let lifetime: TimeInterval = 300
    /// The largest key set read.
    static let maximumBytes = 64 * 1024

    init(fetch: GuardedFetch, operatorFetch: GuardedFetch) {
        self.fetch = fetch
        self.operatorFetch = operatorFetch
    }

    /// The key with `id` (any signing key for `algorithm` when the assertion names none) of `client`.
    nonisolated func key(of client: Client, id: String?, algorithm: String) async throws -> JSONWebKey? {
        let source: any KeySetSource =
            if let registered = client.jwks {
                StaticKeySet(registered)
            } else if let url = client.jwksURI {
                Published(sets: self, url: url, byOperator: client.registeredByOperator)
            } else {
                StaticKeySet(JSONWebKeySet(keys: []))
            }
        return try await source.signingKey(id: id, algorithm: algorithm)
    }

    /// The keys published at `url`: cached ones unless `refresh` or stale. `byOperator`: the URL is an operator's.
    func keySet(at url: String, refresh: Bool, byOperator: Bool) async throws -> JSONWebKeySet {
        if let held = cached[url], held.until > Date() {
            guard refresh else { return held.keys }
            // Anyone can send an assertion naming an unknown key: that is no reason to fetch the set each time.
            if refetches.count > 1000 { refetches.removeAll() }
            guard refetches[url, default: KeySetRefetchLimit()].admit() else { return held.keys }
        }
        let fetched = try await (byOperator ? operatorFetch : fetch).get(url, limit: Self.maximumBytes, what: "key set")
        guard let keys = try? JSONDecoder().decode(JSONWebKeySet.self, from: fetched.body) else {
            throw GuardedFetch.Refusal("The client's key set at \(url) is not a JWKS.")
        }
        if cached.count > 1000 { cached.removeAll() }
        cached[url] = (keys, Date().addingTimeInterval(Self.lifetime))
        return keys
    }

    /// A client's published keys, through the cache.
    private struct Published: KeySetSource {
        let sets: ClientKeySets
        let url: String
        let byOperator: Bool
        func keySet(refresh: Bool) async throws -> JSONWebKeySet { try await sets.keySet(at: url, refresh: refresh, byOperator: byOperator) }
    }
}
