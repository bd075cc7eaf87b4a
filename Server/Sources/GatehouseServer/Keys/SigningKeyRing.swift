import Foundation
import GatehouseProtocol
import JWTKit

/// The keys this server signs with and publishes, loaded from the database.
///
/// It reloads from the database at most every ``reloadInterval`` seconds, so a rotation made by
/// `gatehouse keys rotate` (or by another server node) takes effect without a restart.
actor SigningKeyRing {
    private let store: SigningKeyStore
    private let box: SecretBox
    private let clock: UnixClock
    private var collection = JWTKeyCollection()
    private var activeKeyIDs: [String: String] = [:]
    private var keySet = JSONWebKeySet(keys: [])
    /// `keySet` as the JWKS endpoint sends it, encoded once per reload instead of once per request.
    private var keySetDocument = Data()
    private var loadedAt: Int64 = .min
    static let reloadInterval: Int64 = 30

    init(store: SigningKeyStore, box: SecretBox, clock: UnixClock) {
        self.store = store
        self.box = box
        self.clock = clock
    }

    /// Signs `payload` with the active key for `algorithm` (`RS256` or `ES256`), with `kid` and `typ` headers.
    func sign(_ payload: some JWTPayload, algorithm: String) async throws -> String {
        try await reloadIfStale()
        guard let kid = activeKeyIDs[algorithm] else {
            throw ConfigurationError("There is no active \(algorithm) signing key; run `gatehouse keys rotate`.")
        }
        return try await collection.sign(payload, kid: JWKIdentifier(string: kid), header: ["typ": "JWT"])
    }

    /// Verifies the signature of a token this server issued, with any published key.
    func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async throws -> Payload {
        try await reloadIfStale()
        return try await collection.verify(token, as: Payload.self)
    }

    /// The public keys to publish: active keys and retired keys still within their publication period.
    func publicKeySet() async throws -> JSONWebKeySet {
        try await reloadIfStale()
        return keySet
    }

    /// ``publicKeySet()`` encoded as the JWKS endpoint's body.
    func publicKeySetDocument() async throws -> Data {
        try await reloadIfStale()
        return keySetDocument
    }

    /// Forces the next use to read the keys from the database again.
    func invalidate() {
        loadedAt = .min
    }

    private func reloadIfStale() async throws {
        let now = clock.now()
        guard loadedAt == .min || now - loadedAt >= Self.reloadInterval else { return }
        let records = try await store.all().filter { $0.isPublished(at: now) }
        let fresh = JWTKeyCollection()
        var active: [String: String] = [:]
        var published: [JSONWebKey] = []
        for record in records {
            try await SigningKeyFactory.add(record, to: fresh, box: box)
            if record.isActive { active[record.algorithm] = record.kid }
            published.append(try JSONDecoder().decode(JSONWebKey.self, from: Data(record.publicJWK.utf8)))
        }
        collection = fresh
        activeKeyIDs = active
        keySet = JSONWebKeySet(keys: published)
        keySetDocument = JSONResponse.encode(keySet)
        loadedAt = now
    }
}
