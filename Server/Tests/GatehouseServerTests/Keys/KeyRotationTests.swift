import Foundation
import GatehouseProtocol
import JWTKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Signing keys")
struct KeyRotationTests {
    @Test("keys are created on first start, encrypted at rest, and published without private parts", arguments: TestEngine.available)
    func firstStart(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let records = try await server.keyStore.all()
            #expect(Set(records.map(\.algorithm)) == ["RS256", "ES256"])
            for record in records {
                #expect(!record.sealedPrivateKey.contains("PRIVATE KEY"))
                #expect(!record.publicJWK.contains("\"d\""))
            }
            let jwks = try await server.keys.publicKeySet()
            #expect(Set(jwks.keys.map(\.keyID)) == Set(records.map(\.kid)))
            #expect(jwks.keys.allSatisfy { SigningKeyFactory.thumbprint(of: $0) == $0.keyID })
        }
    }

    @Test("rotation keeps the previous key published until its tokens have expired", arguments: TestEngine.available)
    func rotation(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let claims = IDTokenClaims(
                iss: server.issuer, sub: "u", aud: "c", exp: clock.now() + 600, iat: clock.now(), authTime: clock.now(),
                nonce: nil, azp: "c")
            let before = try await server.keys.sign(claims, algorithm: "RS256")
            let oldKID = try #require(try JWTHeaderPeek.kid(of: before))

            _ = try await server.keyStore.rotate(secret: server.secret, publishFor: 900)
            advance(SigningKeyRing.defaultReloadInterval)  // running servers pick the rotation up without a restart
            let after = try await server.keys.sign(claims, algorithm: "RS256")
            #expect(try JWTHeaderPeek.kid(of: after) != oldKID)

            // A relying party that fetched the new JWKS still verifies the old token.
            let published = try await server.keys.publicKeySet()
            #expect(published.keys.count == 4)
            let relyingParty = JWTKeyCollection()
            try await relyingParty.add(jwksJSON: String(decoding: try JSONEncoder().encode(published), as: UTF8.self))
            _ = try await relyingParty.verify(before, as: IDTokenClaims.self)
            _ = try await relyingParty.verify(after, as: IDTokenClaims.self)

            advance(901)
            _ = try await server.keyStore.rotate(secret: server.secret, publishFor: 900)
            advance(SigningKeyRing.defaultReloadInterval)
            let later = try await server.keys.publicKeySet()
            #expect(!later.keys.map(\.keyID).contains(oldKID))
            #expect(later.keys.count == 4)
        }
    }

    @Test("ES256 tokens are signed with the ES256 key")
    func es256() async throws {
        try await TestServer.withServer { server in
            let claims = IDTokenClaims(
                iss: server.issuer, sub: "u", aud: "c", exp: server.clock.now() + 60, iat: server.clock.now(),
                authTime: server.clock.now(), nonce: "n", azp: "c")
            let token = try await server.keys.sign(claims, algorithm: "ES256")
            let header = try JWTHeaderPeek.header(of: token)
            #expect(header["alg"] as? String == "ES256")
            #expect(header["typ"] as? String == "JWT")
        }
    }
}

/// Reads a JWT header without verifying, for assertions.
enum JWTHeaderPeek {
    static func header(of token: String) throws -> [String: Any] {
        let segment = String(token.split(separator: ".")[0])
        let data = try #require(Base64URL.decode(segment))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func kid(of token: String) throws -> String? {
        try header(of: token)["kid"] as? String
    }
}
