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
        storageKey(token, digesting: token)
    }

    /// The key of a row found by `token` whose digest is of `digested` (another text made from `token`): `token`'s
    /// issue-time prefix, when it is an ``SecureRandom/orderedToken()``, before the digest of `digested`.
    package static func storageKey(_ token: String, digesting digested: String) -> String {
        let utf8 = token.utf8
        guard utf8.count == SecureRandom.orderedTokenLength,
            utf8.prefix(SecureRandom.orderedPrefixLength).allSatisfy({ Hex.lowercaseDigits.contains($0) })
        else { return hex(digested) }
        return String(token.prefix(SecureRandom.orderedPrefixLength)) + hex(digested)
    }
}
