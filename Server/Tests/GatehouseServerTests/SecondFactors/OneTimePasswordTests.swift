import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

@Suite("One-time passwords (RFC 4226, RFC 6238)")
struct OneTimePasswordTests {
    private let sha1Seed = Array("12345678901234567890".utf8)
    private let sha256Seed = Array("12345678901234567890123456789012".utf8)
    private let sha512Seed = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    @Test("HOTP matches RFC 4226 Appendix D")
    func hotpVectors() {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        let generator = OneTimePassword(secret: sha1Seed)
        for (counter, code) in expected.enumerated() {
            #expect(generator.code(counter: UInt64(counter)) == code)
        }
    }

    @Test("TOTP matches RFC 6238 Appendix B for SHA-1, SHA-256 and SHA-512")
    func totpVectors() {
        let table: [(Int64, String, String, String)] = [
            (59, "94287082", "46119246", "90693936"),
            (1_111_111_109, "07081804", "68084774", "25091201"),
            (1_111_111_111, "14050471", "67062674", "99943326"),
            (1_234_567_890, "89005924", "91819424", "93441116"),
            (2_000_000_000, "69279037", "90698825", "38618901"),
            (20_000_000_000, "65353130", "77737706", "47863826"),
        ]
        for (time, sha1, sha256, sha512) in table {
            #expect(OneTimePassword(secret: sha1Seed, algorithm: .sha1, digits: 8).code(at: time) == sha1)
            #expect(OneTimePassword(secret: sha256Seed, algorithm: .sha256, digits: 8).code(at: time) == sha256)
            #expect(OneTimePassword(secret: sha512Seed, algorithm: .sha512, digits: 8).code(at: time) == sha512)
        }
    }

    @Test("a code is accepted one step either side of now and refused further out")
    func skewWindow() {
        let generator = OneTimePassword(secret: sha1Seed)
        let now: Int64 = 1_111_111_111
        #expect(generator.matchingStep(for: generator.code(at: now), at: now) == now / 30)
        #expect(generator.matchingStep(for: generator.code(at: now - 30), at: now) == now / 30 - 1)
        #expect(generator.matchingStep(for: generator.code(at: now + 30), at: now) == now / 30 + 1)
        #expect(generator.matchingStep(for: generator.code(at: now - 60), at: now) == nil)
        #expect(generator.matchingStep(for: generator.code(at: now + 60), at: now) == nil)
        #expect(generator.matchingStep(for: "12345", at: now) == nil)
    }

    @Test("the provisioning URI carries the Base32 secret and the parameters")
    func provisioningURI() {
        let uri = OneTimePassword(secret: sha1Seed).provisioningURI(issuer: "Gatehouse Demo", account: "ada@example.com")
        #expect(
            uri
                == "otpauth://totp/Gatehouse%20Demo:ada%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Gatehouse%20Demo&algorithm=SHA1&digits=6&period=30"
        )
    }
}
