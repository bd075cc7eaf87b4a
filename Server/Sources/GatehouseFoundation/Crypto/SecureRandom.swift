import Crypto
import Foundation
import GatehouseProtocol
import NIOConcurrencyHelpers

/// Unguessable values from a CSPRNG: BoringSSL's generator, seeded and reseeded from the system.
package enum SecureRandom {
    package static func bytes(_ count: Int) -> [UInt8] {
        // One draw from BoringSSL's generator for the whole buffer (reseeded from the system; fork-safe). The
        // system generator's `next()` is a `getrandom` call per eight bytes, which made those calls the most
        // expensive part of issuing a token.
        guard count > 0 else { return [] }
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    /// `count` decimal digits, each uniform (the system generator's `random(in:)` rejects biased draws).
    package static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// A 256-bit random token as base64url text: codes, access and refresh tokens, session ids, CSRF tokens.
    package static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }

    /// The length of an ``orderedToken()``: the prefix, then a ``token(byteCount:)`` of 32 bytes in base64url.
    package static let orderedTokenLength = orderedPrefixLength + (32 * 4 + 2) / 3
    /// Hex digits of an ordered token's issue time.
    package static let orderedPrefixLength = 16

    /// An access or refresh token: its issue time (microseconds since 1970, 16 hex digits, strictly increasing
    /// within the process) before 256 random bits. Stored under ``TokenDigest/storageKey(_:)``, which keeps that
    /// prefix, newer tokens sort after older ones, so each insert lands on the last page of the table's index
    /// instead of a random one. The prefix tells nothing beyond when the token was issued.
    package static func orderedToken() -> String {
        orderedPrefix() + token()
    }

    /// An ordered token's prefix: the issue time in microseconds, 16 hex digits, strictly increasing within the process.
    package static func orderedPrefix() -> String {
        let time = lastIssueTime.withLockedValue { last in
            last = max(last + 1, UInt64(Date().timeIntervalSince1970 * 1_000_000))
            return last
        }
        let digits = String(time, radix: 16)
        return String(repeating: "0", count: orderedPrefixLength - digits.count) + digits
    }

    private static let lastIssueTime = NIOLockedValueBox<UInt64>(0)
}
