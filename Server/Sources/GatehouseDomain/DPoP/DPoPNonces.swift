import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol

/// The server's DPoP nonces (RFC 9449 §8): a keyed digest of the current five-minute window, so every node that
/// shares the server secret issues and accepts the same ones without storing them. A nonce stays good for the
/// window it was made in and the next.
package struct DPoPNonces: Sendable {
    package let clock: UnixClock
    package let key: SymmetricKey

    package static let window: Int64 = 300

    package init(clock: UnixClock, secret: ServerSecret) {
        self.clock = clock
        key = SymmetricKey(data: SecretBox(serverSecret: secret.bytes, purpose: "dpop nonces v1").derivedBytes("nonce"))
    }

    /// The nonce to hand out now.
    package var current: String { nonce(forWindow: clock.now() / Self.window) }

    /// Whether `nonce` was handed out in this window or the last.
    package func accepts(_ nonce: String?) -> Bool {
        guard let nonce else { return false }
        let window = clock.now() / Self.window
        return ConstantTime.equals(nonce, self.nonce(forWindow: window)) || ConstantTime.equals(nonce, self.nonce(forWindow: window - 1))
    }

    private func nonce(forWindow window: Int64) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data("\(window)".utf8), using: key)).prefix(18))
    }
}
