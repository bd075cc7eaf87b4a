import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import Testing

@testable import Gatehouse

/// Counts how often the validator asks for fresh keys.
private actor CountingKeySet: KeySetSource {
    let keys: JSONWebKeySet
    var refreshes = 0
    init(_ keys: JSONWebKeySet) { self.keys = keys }
    func keySet(refresh: Bool) async throws -> JSONWebKeySet {
        if refresh { refreshes += 1 }
        return keys
    }
}

@Suite("ID token validation")
struct IDTokenValidatorTests {
    private let issuer = TestIssuer()
    private var validator: IDTokenValidator {
        IDTokenValidator(issuer: "https://id.example.com", clientID: "app", keys: StaticKeySet(issuer.keySet))
    }

    @Test("valid RS256 and ES256 tokens pass and carry their claims", arguments: ["RS256", "ES256"])
    func valid(algorithm: String) async throws {
        let claims = try await validator.validate(try issuer.token(alg: algorithm), nonce: "n-1")
        #expect(claims.subject == "user-1" && claims.audience == ["app"] && claims.authenticationMethods == ["pwd"])
    }

    @Test("a changed payload breaks the signature")
    func tampered() async throws {
        let token = try issuer.token()
        let parts = token.split(separator: ".")
        let forged = try JSONSerialization.data(withJSONObject: [
            "iss": "https://id.example.com", "sub": "admin", "aud": "app",
            "exp": Int(Date().timeIntervalSince1970) + 300, "iat": Int(Date().timeIntervalSince1970),
        ])
        let tampered = parts[0] + "." + Base64URL.encode(forged) + "." + parts[2]
        await #expect(throws: IDTokenValidationError.badSignature) { try await validator.validate(String(tampered), nonce: nil) }
    }

    @Test("none, HMAC and algorithms outside the allow-list are refused")
    func algorithms() async throws {
        await #expect(throws: IDTokenValidationError.algorithmNotAllowed("HS256")) {
            try await validator.validate(try issuer.token(alg: "HS256", kid: "rsa-1"), nonce: nil)
        }
        let unsigned = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Data(#"{"sub":"x"}"#.utf8)) + "."
        await #expect(throws: IDTokenValidationError.algorithmNotAllowed("none")) { try await validator.validate(unsigned, nonce: nil) }
        let rsaOnly = IDTokenValidator(issuer: "https://id.example.com", clientID: "app", keys: StaticKeySet(issuer.keySet), allowedAlgorithms: ["RS256"])
        await #expect(throws: IDTokenValidationError.algorithmNotAllowed("ES256")) { try await rsaOnly.validate(try issuer.token(alg: "ES256"), nonce: nil) }
    }

    @Test("a token that names the EC key but claims RS256 finds no key")
    func keyConfusion() async throws {
        await #expect(throws: IDTokenValidationError.unknownKey("ec-1")) {
            try await validator.validate(try issuer.token(alg: "RS256", kid: "ec-1"), nonce: nil)
        }
    }

    @Test("an unknown key id makes the validator fetch the keys again once, then fail")
    func unknownKeyRefreshes() async throws {
        let keys = CountingKeySet(issuer.keySet)
        let validator = IDTokenValidator(issuer: "https://id.example.com", clientID: "app", keys: keys)
        await #expect(throws: IDTokenValidationError.unknownKey("rotated")) {
            try await validator.validate(try issuer.token(kid: "rotated"), nonce: nil)
        }
        #expect(await keys.refreshes == 1)
    }

    @Test("tokens naming unknown keys fetch the remote key set again once, then not within the limit's interval")
    func refetchLimit() async throws {
        let provider = MockProvider(firstNode: FlowTests.credentials)
        let keys = RemoteKeySet(url: try #require(URL(string: MockProvider.issuer + "/jwks")), transport: provider)
        let validator = IDTokenValidator(issuer: MockProvider.issuer, clientID: "app", keys: keys)
        for kid in ["forged-1", "forged-2", "forged-3", "forged-4"] {
            await #expect(throws: IDTokenValidationError.unknownKey(kid)) { try await validator.validate(try issuer.token(kid: kid), nonce: nil) }
        }
        // The first fetch, and one more for the first unknown key: not one per token.
        #expect(await provider.requests.filter { $0 == "/jwks" }.count == 2)
        var limit = KeySetRefetchLimit()
        let start = Date()
        let first = limit.admit(at: start)
        let tooSoon = limit.admit(at: start.addingTimeInterval(KeySetRefetchLimit.interval - 1))
        let later = limit.admit(at: start.addingTimeInterval(KeySetRefetchLimit.interval))
        #expect(first && !tooSoon && later)
    }

    @Test("issuer, audience, expiry, issue time and nonce are checked")
    func claims() async throws {
        let now = Date()
        await #expect(throws: IDTokenValidationError.wrongIssuer(expected: "https://id.example.com", found: "https://evil.example")) {
            try await validator.validate(try issuer.token(claims: ["iss": "https://evil.example"]), nonce: "n-1")
        }
        await #expect(throws: IDTokenValidationError.wrongAudience("app")) {
            try await validator.validate(try issuer.token(claims: ["aud": "other", "azp": "other"]), nonce: "n-1")
        }
        await #expect(throws: IDTokenValidationError.wrongAudience("app")) {
            try await validator.validate(try issuer.token(claims: ["aud": ["app", "other"], "azp": "other"]), nonce: "n-1")
        }
        await #expect(throws: IDTokenValidationError.expired) {
            try await validator.validate(try issuer.token(claims: ["exp": Int(now.timeIntervalSince1970) - 120]), nonce: "n-1")
        }
        await #expect(throws: IDTokenValidationError.issuedInTheFuture) {
            try await validator.validate(try issuer.token(claims: ["iat": Int(now.timeIntervalSince1970) + 600]), nonce: "n-1")
        }
        await #expect(throws: IDTokenValidationError.nonceMismatch) { try await validator.validate(try issuer.token(), nonce: "other") }
        await #expect(throws: IDTokenValidationError.nonceMismatch) {
            try await validator.validate(try issuer.token(claims: ["nonce": NSNull()]), nonce: "n-1")
        }
        // With max_age, auth_time must be there and recent enough (Core §3.1.3.7 step 13), within the leeway.
        let authTime = Int(now.timeIntervalSince1970) - 400
        await #expect(throws: IDTokenValidationError.authenticationTooOld) {
            try await validator.validate(try issuer.token(claims: ["auth_time": authTime]), nonce: "n-1", maxAge: 300)
        }
        await #expect(throws: IDTokenValidationError.authenticationTooOld) { try await validator.validate(try issuer.token(), nonce: "n-1", maxAge: 3600) }
        _ = try await validator.validate(try issuer.token(claims: ["auth_time": authTime]), nonce: "n-1", maxAge: 350)
        _ = try await validator.validate(try issuer.token(claims: ["auth_time": authTime]), nonce: "n-1")
        // Within the leeway an expired-a-moment-ago token still passes.
        _ = try await validator.validate(try issuer.token(claims: ["exp": Int(now.timeIntervalSince1970) - 10]), nonce: "n-1")
    }

    @Test("garbage is reported as malformed, never a crash", arguments: ["", "a.b", "a.b.c", "....", "eyJhbGciOiJSUzI1NiJ9.e30.AAAA"])
    func malformed(token: String) async throws {
        await #expect(throws: IDTokenValidationError.self) { try await validator.validate(token, nonce: nil) }
    }
}
