import Crypto
import CryptoExtras
import Foundation

/// How many token signatures this machine makes per second on every core: the ceiling of every grant that returns a
/// new signed token. `gatehouse sign-rate` prints it, and the load benchmark reports the token grants against it.
package enum SignatureRate {
    /// What signs, as the server signs its tokens.
    package enum Signer: String, CaseIterable, Sendable, Codable {
        /// RS256 through ``RSASigningKey`` (libcrypto on Linux): the server's ID and access tokens.
        case rs256 = "RS256"
        /// RS256 through swift-crypto's BoringSSL, what ``RSASigningKey`` replaces on Linux: the comparison.
        case rs256SwiftCrypto = "RS256 (swift-crypto)"
        /// ES256 through swift-crypto (P-256).
        case es256 = "ES256"
    }

    /// Signatures per second of `signer` on `lanes` tasks at once for `seconds`, over a message the size of an ID
    /// token's signing input.
    package static func measure(_ signer: Signer, seconds: Double, lanes: Int) async throws -> Double {
        let sign = try signature(of: signer)
        let message = Array(repeating: UInt8(ascii: "a"), count: 640)
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = started.advanced(by: .milliseconds(Int(seconds * 1000)))
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<lanes {
                group.addTask {
                    var done = 0
                    while clock.now < deadline {
                        _ = try sign(message)
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = started.duration(to: clock.now)
        return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// A new key of `signer`'s kind, as the function that signs with it.
    private static func signature(of signer: Signer) throws -> @Sendable ([UInt8]) throws -> Void {
        switch signer {
        case .rs256:
            let key = try RSASigningKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
            return { _ = try key.signature(for: $0) }
        case .rs256SwiftCrypto:
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            return { _ = try key.signature(for: $0, padding: .insecurePKCS1v1_5) }
        case .es256:
            let key = P256.Signing.PrivateKey()
            return { _ = try key.signature(for: $0) }
        }
    }
}
