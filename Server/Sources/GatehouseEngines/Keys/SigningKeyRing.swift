import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import JWTKit
import NIOConcurrencyHelpers

/// The keys this server signs with and publishes, loaded from the database.
///
/// It reloads from the database at most every ``reloadInterval`` seconds, so a rotation made by
/// `gatehouse keys rotate` (or by another server node) takes effect without a restart. A key the rotation schedule
/// made ahead is loaded while it is only published, and takes over signing at its time on every node at once.
///
/// Signing runs on the caller's task, on every core at once: the loaded keys are an immutable ``Snapshot``
/// behind a lock held only to copy it, and only reloads are serialized (by ``Loader``). Going through an
/// actor for each signature would put every token response in one line, one core's worth of signatures.
package final class SigningKeyRing: Sendable {
    /// Seconds between reloads unless told otherwise.
    package static let defaultReloadInterval: Int64 = 30

    /// Seconds a loaded snapshot serves before the next read of the database.
    package let reloadInterval: Int64
    private let clock: UnixClock
    private let loader: Loader
    private let current = NIOLockedValueBox<Snapshot?>(nil)

    /// A ring that reads `store` every `reloadInterval` seconds: it must be well under the time a scheduled key is
    /// published before it signs.
    package init(store: SigningKeyStore, box: SecretBox, clock: UnixClock, reloadInterval: Int64 = defaultReloadInterval) {
        self.clock = clock
        self.reloadInterval = reloadInterval
        loader = Loader(store: store, box: box)
    }

    /// What a token is, as its `typ` header says, so that no one takes one kind for another (RFC 8725 §3.11).
    package enum TokenType: String, Sendable, CaseIterable {
        /// ID tokens: `JWT`.
        case idToken = "JWT"
        /// Access tokens (RFC 9068 §2.1).
        case accessToken = "at+jwt"
        /// Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4).
        case logoutToken = "logout+jwt"
    }

    /// Signs `payload` with the active key for `algorithm` (`RS256` or `ES256`), with `kid` and the `typ` of `type`.
    package func sign(_ payload: some JWTPayload & JSONObjectWritable, algorithm: String, type: TokenType = .idToken) async throws -> String {
        let now = clock.now()
        guard let signer = try await snapshot().signers[algorithm]?.last(where: { $0.isActive(at: now) }) else {
            throw ConfigurationError("There is no active \(algorithm) signing key; run `gatehouse keys rotate`.")
        }
        return try signer.sign(payload, type: type)
    }

    /// Loads the keys from the database now, without waiting for ``reloadInterval``: after a rotation on this node.
    package func reloadNow() async throws {
        _ = try await loader.reload(into: current, now: clock.now(), interval: 0)
    }

    /// Verifies the signature of a token this server issued, with any published key.
    package func verify<Payload: JWTPayload>(_ token: String, as type: Payload.Type) async throws -> Payload {
        try await snapshot().collection.verify(token, as: Payload.self)
    }

    /// The public keys to publish: active keys and retired keys still within their publication period.
    package func publicKeySet() async throws -> JSONWebKeySet {
        try await snapshot().keySet
    }

    /// ``publicKeySet()`` encoded as the JWKS endpoint's body.
    package func publicKeySetDocument() async throws -> Data {
        try await snapshot().keySetDocument
    }

    private func snapshot() async throws -> Snapshot {
        let now = clock.now()
        if let loaded = current.withLockedValue({ $0 }), now - loaded.loadedAt < reloadInterval {
            return loaded
        }
        return try await loader.reload(into: current, now: now, interval: reloadInterval)
    }

    /// The keys as loaded at one moment; never changed, replaced whole by a reload.
    package struct Snapshot: Sendable {
        /// Every published key, for verifying tokens this server issued.
        package var collection: JWTKeyCollection
        /// The keys of each algorithm that sign now or will, by the time they start.
        package var signers: [String: [ActiveSigner]]
        package var keySet: JSONWebKeySet
        /// `keySet` as the JWKS endpoint sends it, encoded once per reload instead of once per request.
        package var keySetDocument: Data
        package var loadedAt: Int64
    }

    /// One private key that signs now or will, and its JWS header, encoded once (RFC 7515 §7.1 compact serialization).
    package struct ActiveSigner: Sendable {
        package let algorithm: any JWTAlgorithm
        /// When the key starts signing.
        package var activatesAt: Int64 = 0
        /// When it stops; `nil` while no successor is scheduled.
        package var retiredAt: Int64?
        /// `BASE64URL(header) "."` for each type of token, the start of every token this key signs.
        private let encodedHeaders: [TokenType: String]

        private struct Header: Encodable {
            var alg: String
            var kid: String
            var typ: String
        }

        package init(algorithm: any JWTAlgorithm, name: String, kid: String) throws {
            self.algorithm = algorithm
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var headers: [TokenType: String] = [:]
            for type in TokenType.allCases {
                headers[type] = Base64URL.encode(try encoder.encode(Header(alg: name, kid: kid, typ: type.rawValue))) + "."
            }
            encodedHeaders = headers
        }

        /// Whether the key signs at `now`.
        package func isActive(at now: Int64) -> Bool { activatesAt <= now && retiredAt.map { $0 > now } ?? true }

        package func sign(_ payload: some JWTPayload & JSONObjectWritable, type: TokenType = .idToken) throws -> String {
            let signingInput = encodedHeaders[type, default: ""] + Base64URL.encode(payload.jsonBytes)
            return signingInput + "." + Base64URL.encode(try algorithm.sign(Array(signingInput.utf8)))
        }
    }

    /// Reads the keys from the database, one reload at a time: callers that find the keys stale together
    /// wait for the same reload instead of each reading and decrypting every key.
    package actor Loader {
        private let store: SigningKeyStore
        private let box: SecretBox

        package init(store: SigningKeyStore, box: SecretBox) {
            self.store = store
            self.box = box
        }

        package func reload(into current: NIOLockedValueBox<Snapshot?>, now: Int64, interval: Int64) async throws -> Snapshot {
            if let loaded = current.withLockedValue({ $0 }), now - loaded.loadedAt < interval {
                return loaded  // another caller reloaded while this one waited
            }
            let records = try await store.all().filter { $0.isPublished(at: now) }
            let collection = JWTKeyCollection()
            var signers: [String: [ActiveSigner]] = [:]
            var published: [JSONWebKey] = []
            for record in records.sorted(by: { $0.activatesAt < $1.activatesAt }) {
                if let algorithm = try await SigningKeyFactory.add(record, to: collection, box: box, now: now) {
                    var signer = try ActiveSigner(algorithm: algorithm, name: record.algorithm, kid: record.kid)
                    signer.activatesAt = record.activatesAt
                    signer.retiredAt = record.retiredAt
                    signers[record.algorithm, default: []].append(signer)
                }
                published.append(try JSONDecoder().decode(JSONWebKey.self, from: Data(record.publicJWK.utf8)))
            }
            let keySet = JSONWebKeySet(keys: published)
            let snapshot = Snapshot(
                collection: collection, signers: signers, keySet: keySet,
                keySetDocument: JSONDocument.encode(keySet), loadedAt: now)
            current.withLockedValue { $0 = snapshot }
            return snapshot
        }
    }
}
