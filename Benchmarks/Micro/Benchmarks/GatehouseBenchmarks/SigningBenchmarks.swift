import Benchmark
import Crypto
import JWTKit
import _CryptoExtras

/// Signing and verifying an ID token's worth of claims with the server's two algorithms, through jwt-kit as the
/// server does. RS256 signing is the ceiling of any grant that returns a new RS256 ID token.
enum SigningBenchmarks {
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var nonce: String
        var email: String

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    static func register() {
        let claims = Claims(
            iss: "http://127.0.0.1:8080", sub: "5f0c2d8e-5b1a-4c1e-9a63-8d8a3b7e2f41", aud: "web-app",
            exp: .init(value: .now.addingTimeInterval(900)), iat: .init(value: .now), nonce: "n-0S6_WzA2Mj",
            email: "ann@example.com")
        for algorithm in ["RS256", "ES256"] {
            Benchmark("JWT sign \(algorithm)") { benchmark, keys in
                for _ in benchmark.scaledIterations {
                    blackHole(try await keys.sign(claims, kid: JWKIdentifier(string: algorithm)))
                }
            } setup: {
                try await keyCollection()
            }
            Benchmark("JWT verify \(algorithm)") { (benchmark: Benchmark, setup: SignedToken) in
                for _ in benchmark.scaledIterations {
                    blackHole(try await setup.keys.verify(setup.token, as: Claims.self))
                }
            } setup: {
                let keys = try await keyCollection()
                return SignedToken(keys: keys, token: try await keys.sign(claims, kid: JWKIdentifier(string: algorithm)))
            }
        }
    }

    struct SignedToken: Sendable {
        let keys: JWTKeyCollection
        let token: String
    }

    private static func keyCollection() async throws -> JWTKeyCollection {
        let keys = JWTKeyCollection()
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: rsa), digestAlgorithm: .sha256, kid: "RS256")
        await keys.add(ecdsa: try ES256PrivateKey(backing: P256.Signing.PrivateKey()), kid: "ES256")
        return keys
    }
}
