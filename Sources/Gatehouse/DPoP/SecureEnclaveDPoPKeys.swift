#if canImport(CryptoKit) && (os(iOS) || os(macOS))
import CryptoKit
import Foundation
import GatehouseProtocol

/// DPoP keys made inside the Secure Enclave: the private key never leaves it, and the token storage keeps only the
/// enclave's wrapped handle, which works on this device alone. Falls back to ``SoftwareDPoPKeys`` where there is no
/// Secure Enclave (the simulator, older Macs).
public struct SecureEnclaveDPoPKeys: DPoPKeyProvider {
    public init() {}

    public func makeKey() throws -> any DPoPKey {
        guard SecureEnclave.isAvailable else { return try SoftwareDPoPKeys().makeKey() }
        return EnclaveKey(key: try SecureEnclave.P256.Signing.PrivateKey())
    }

    public func restoreKey(from representation: Data) throws -> any DPoPKey {
        // A software key's raw representation is 32 bytes; an enclave handle is far longer.
        guard representation.count > 32, SecureEnclave.isAvailable else { return try SoftwareDPoPKeys().restoreKey(from: representation) }
        return EnclaveKey(key: try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: representation))
    }

    struct EnclaveKey: DPoPKey {
        let key: SecureEnclave.P256.Signing.PrivateKey
        var algorithm: String { "ES256" }
        var publicKey: JSONWebKey { SoftwareDPoPKey.jwk(p256: key.publicKey.rawRepresentation) }
        var storedRepresentation: Data { key.dataRepresentation }
        func signature(for data: Data) throws -> Data { try key.signature(for: data).rawRepresentation }
    }
}
#endif
