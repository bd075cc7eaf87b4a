import Crypto
import Foundation
import GatehouseProtocol

/// The storage form of high-entropy secrets (tokens, codes, generated client secrets): SHA-256, hex.
///
/// A 256-bit random value cannot be brute-forced, so a fast hash is right here; a slow KDF
/// would only cost CPU on every request. Passwords use ``PasswordHasher`` instead.
package enum TokenDigest {
    package static func hex(_ secret: String) -> String {
        Hex.encode(SHA256.hash(data: Data(secret.utf8)))
    }

    /// The key an access or refresh token is stored and found under: the issue-time prefix of an
    /// ``SecureRandom/orderedToken()`` followed by the digest of the whole token, so keys sort by issue time;
    /// just the digest for a token without that prefix (issued before ordered tokens, or made up).
    package static func storageKey(_ token: String) -> String {
        String(orderedPrefix(of: token) ?? "") + hex(token)
    }

    /// The issue-time prefix of an ``SecureRandom/orderedToken()``, which its storage key starts with; `nil` for any
    /// other text.
    package static func orderedPrefix(of token: String) -> Substring? {
        let utf8 = token.utf8
        guard utf8.count == SecureRandom.orderedTokenLength,
            utf8.prefix(SecureRandom.orderedPrefixLength).allSatisfy({ Hex.lowercaseDigits.contains($0) })
        else { return nil }
        return token.prefix(SecureRandom.orderedPrefixLength)
    }
}
