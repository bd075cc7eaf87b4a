import Foundation
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the validator finds the provider's public keys.
public protocol KeySetSource: Sendable {
    /// The key set; with `refresh`, fetched anew (a token names a key the cached set lacks: the keys rotated).
    func keySet(refresh: Bool) async throws -> JSONWebKeySet
}

extension KeySetSource {
    /// The key that signs with `algorithm` and has the id `id` (any key of the algorithm when the token names none),
    /// fetching the set again once when the cached one lacks it: the provider rotated its keys. `nil` when no key fits.
    public func signingKey(id: String?, algorithm: String) async throws -> JSONWebKey? {
        func find(_ set: JSONWebKeySet) -> JSONWebKey? {
            // `alg` and `use` are optional in a JWK (RFC 7517 §4): a key that names them must name these.
            set.keys.first { ($0.keyID == id || id == nil) && ($0.algorithm ?? algorithm) == algorithm && ($0.use ?? "sig") == "sig" }
        }
        if let key = find(try await keySet(refresh: false)) { return key }
        return find(try await keySet(refresh: true))
    }
}

/// The provider's JWKS, fetched over HTTP and cached until a token names an unknown key (then fetched again, at most
/// once within ``KeySetRefetchLimit/interval``).
public actor RemoteKeySet: KeySetSource {
    private let url: URL
    private let transport: any HTTPTransport
    private var cached: JSONWebKeySet?
    private var refetches = KeySetRefetchLimit()

    /// Keys fetched from `url` (the provider's `jwks_uri`) with `transport`, cached, and fetched again for an unknown key
    /// id (at most once within ``KeySetRefetchLimit/interval``).
    public init(url: URL, transport: any HTTPTransport = URLSessionTransport()) {
        self.url = url
        self.transport = transport
    }

    public func keySet(refresh: Bool) async throws -> JSONWebKeySet {
        if let cached, !refresh || !refetches.admit() { return cached }
        let (data, response) = try await transport.send(URLRequest(url: url))
        guard response.statusCode == 200, let keys = try? JSONDecoder().decode(JSONWebKeySet.self, from: data) else {
            throw IDTokenValidationError.keySetUnavailable(status: response.statusCode)
        }
        cached = keys
        return keys
    }
}

/// A fixed key set, for tests and for apps that pin keys.
public struct StaticKeySet: KeySetSource {
    /// The keys to verify with.
    public let keys: JSONWebKeySet

    /// A source that always answers with `keys`.
    public init(_ keys: JSONWebKeySet) {
        self.keys = keys
    }

    public func keySet(refresh: Bool) async throws -> JSONWebKeySet { keys }
}
