import Crypto
import Foundation
import GatehouseProtocol

/// A private key that proves possession for DPoP-bound tokens (RFC 9449): tokens issued with proofs of this key are
/// useless to anyone who copies them without it.
///
/// ``SoftwareDPoPKey`` keeps a P-256 key beside the tokens (in the token storage: the Keychain, or the encrypted file
/// store). On Apple devices with a Secure Enclave, `SecureEnclaveDPoPKeys` makes keys that never leave it.
public protocol DPoPKey: Sendable {
    /// The JWS algorithm the key signs with (`ES256`).
    var algorithm: String { get }
    /// The public half, as proofs carry it in their `jwk` header.
    var publicKey: JSONWebKey { get }
    /// What the token storage keeps so ``DPoPKeyProvider/restoreKey(from:)`` can bring the key back.
    var storedRepresentation: Data { get }
    /// A JWS signature (for ES256 the 64-byte `r || s`) of `data`.
    func signature(for data: Data) throws -> Data
}

/// Makes and restores an app's DPoP keys: set one as ``GatehouseConfiguration/dpop`` to have every sign-in's tokens
/// bound to a key of its own.
public protocol DPoPKeyProvider: Sendable {
    /// A new key, for a new sign-in.
    func makeKey() throws -> any DPoPKey
    /// The key stored as `representation` by an earlier launch.
    func restoreKey(from representation: Data) throws -> any DPoPKey
}

/// A P-256 key in memory, stored with the tokens.
public struct SoftwareDPoPKey: DPoPKey {
    let key: P256.Signing.PrivateKey

    /// A new key, or the key of `rawRepresentation`.
    public init(rawRepresentation: Data? = nil) throws {
        key = try rawRepresentation.map { try P256.Signing.PrivateKey(rawRepresentation: $0) } ?? P256.Signing.PrivateKey()
    }

    public var algorithm: String { "ES256" }
    public var publicKey: JSONWebKey { Self.jwk(p256: key.publicKey.rawRepresentation) }
    public var storedRepresentation: Data { key.rawRepresentation }

    public func signature(for data: Data) throws -> Data {
        try key.signature(for: data).rawRepresentation
    }

    /// The JWK of a P-256 public key from its raw representation (x then y, 32 bytes each), wherever the key lives.
    static func jwk(p256 raw: Data) -> JSONWebKey {
        JSONWebKey(
            keyType: "EC", keyID: nil, use: nil, algorithm: nil, curve: "P-256", x: Base64URL.encode(raw.prefix(32)), y: Base64URL.encode(raw.suffix(32)))
    }
}

/// Software P-256 keys: on every platform, kept in the token storage with the tokens they bind.
public struct SoftwareDPoPKeys: DPoPKeyProvider {
    /// The software key provider; it has no settings.
    public init() {}
    public func makeKey() throws -> any DPoPKey { try SoftwareDPoPKey() }
    public func restoreKey(from representation: Data) throws -> any DPoPKey { try SoftwareDPoPKey(rawRepresentation: representation) }
}
