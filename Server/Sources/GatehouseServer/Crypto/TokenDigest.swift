import Crypto
import Foundation
import GatehouseProtocol

/// The storage form of high-entropy secrets (tokens, codes, generated client secrets): SHA-256, hex.
///
/// A 256-bit random value cannot be brute-forced, so a fast hash is right here; a slow KDF
/// would only cost CPU on every request. Passwords use ``PasswordHasher`` instead.
enum TokenDigest {
    static func hex(_ secret: String) -> String {
        Hex.encode(SHA256.hash(data: Data(secret.utf8)))
    }
}
