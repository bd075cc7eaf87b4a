import Crypto
import Foundation

/// Signatures of outbound webhook requests as the Standard Webhooks specification has them, so a receiver checks them
/// with any of its libraries: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,BASE64`, the HMAC-SHA256 of
/// `ID.TIMESTAMP.BODY`.
package struct StandardWebhookSignature: Sendable {
    private let key: SymmetricKey

    /// A signer with `secret`: a `whsec_` secret is the base64 of its key, as the specification writes secrets; any other
    /// is its UTF-8 bytes.
    package init(secret: String) {
        if secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))), !key.isEmpty {
            self.key = SymmetricKey(data: key)
        } else {
            key = SymmetricKey(data: Data(secret.utf8))
        }
    }

    /// The three headers of a request with `body`, the message `id` (the same on every retry, so a receiver drops
    /// repeats) sent at `timestamp` (Unix seconds; receivers refuse old ones).
    package func headers(id: String, timestamp: Int64, body: Data) -> [(name: String, value: String)] {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: key)
        return [("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", "v1," + Data(mac).base64EncodedString())]
    }
}
