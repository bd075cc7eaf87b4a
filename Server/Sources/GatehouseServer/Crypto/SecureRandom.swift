import Crypto
import GatehouseProtocol

/// Unguessable values from a CSPRNG: BoringSSL's generator, seeded and reseeded from the system.
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        // One draw from BoringSSL's generator for the whole buffer (reseeded from the system; fork-safe). The
        // system generator's `next()` is a `getrandom` call per eight bytes, which made those calls the most
        // expensive part of issuing a token.
        guard count > 0 else { return [] }
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    /// `count` decimal digits, each uniform (the system generator's `random(in:)` rejects biased draws).
    static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// A 256-bit random token as base64url text: codes, access and refresh tokens, session ids, CSRF tokens.
    static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
