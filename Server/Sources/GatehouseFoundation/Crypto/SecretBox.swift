import Crypto
import Foundation
import GatehouseProtocol

/// Authenticated encryption (AES-256-GCM) under a key derived from the server secret, for what must be
/// stored encrypted at rest (signing keys) or handed to a browser sealed (the demo's state).
package struct SecretBox: Sendable {
    private let key: SymmetricKey

    /// - Parameters:
    ///   - serverSecret: the server secret's bytes.
    ///   - purpose: separates keys for different uses, so one sealed value never opens as another.
    package init(serverSecret: [UInt8], purpose: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: serverSecret),
            salt: Data("gatehouse".utf8),
            info: Data(purpose.utf8),
            outputByteCount: 32
        )
    }

    package func seal(_ plaintext: Data) throws -> String {
        let box = try AES.GCM.seal(plaintext, using: key)
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return combined.base64EncodedString()
    }

    package func open(_ sealed: String) throws -> Data {
        guard let combined = Data(base64Encoded: sealed) else { throw CryptoKitError.incorrectParameterSize }
        return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key)
    }

    /// 32 bytes derived from the server secret for `label`, the same on every node and across restarts.
    package func derivedBytes(_ label: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data(label.utf8), using: key))
    }

    /// ``derivedBytes(_:)`` as base64url text (e.g. the demo client's secret).
    package func derivedToken(_ label: String) -> String {
        Base64URL.encode(derivedBytes(label))
    }
}
