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

/// The provider's JWKS, fetched over HTTP and cached until a token names an unknown key.
public actor RemoteKeySet: KeySetSource {
    private let url: URL
    private let transport: any HTTPTransport
    private var cached: JSONWebKeySet?

    /// Keys fetched from `url` (the provider's `jwks_uri`) with `transport`, cached, and fetched again for an unknown key id.
    public init(url: URL, transport: any HTTPTransport = URLSessionTransport()) {
        self.url = url
        self.transport = transport
    }

    public func keySet(refresh: Bool) async throws -> JSONWebKeySet {
        if !refresh, let cached { return cached }
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
