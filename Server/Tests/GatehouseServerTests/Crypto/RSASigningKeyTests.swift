import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseFoundation

@Suite("RSA signatures (RS256)")
struct RSASigningKeyTests {
    /// RFC 7515 Appendix A.2: the RSA key of the example, as its JWK gives it (`e` is AQAB).
    static let n =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let d =
        "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ"
    static let p =
        "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc"
    static let q =
        "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc"

    static func bytes(_ base64url: String) throws -> Data {
        try #require(Base64URL.decode(base64url))
    }

    @Test("RFC 7515 Appendix A.2: the example's key and signing input give the published signature, byte for byte")
    func publishedExample() throws {
        let swiftCryptoKey = try _RSA.Signing.PrivateKey(
            n: try Self.bytes(Self.n), e: try Self.bytes("AQAB"), d: try Self.bytes(Self.d), p: try Self.bytes(Self.p), q: try Self.bytes(Self.q))
        let input = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        let published =
            "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
        for key in [try RSASigningKey(swiftCryptoKey), try RSASigningKey(pemRepresentation: swiftCryptoKey.pkcs8PEMRepresentation)] {
            let signature = try key.signature(for: Array(input.utf8))
            #expect(Base64URL.encode(signature) == published)
            #expect(key.isValidSignature(signature, for: Array(input.utf8)))
            #expect(!key.isValidSignature(signature, for: Array((input + "x").utf8)))
        }
    }

    @Test("the signatures equal swift-crypto's for the same key and message, from empty to a megabyte")
    func sameAsSwiftCrypto() throws {
        let swiftCryptoKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try RSASigningKey(pemRepresentation: swiftCryptoKey.pemRepresentation)
        #expect(key.keySizeInBits == 2048)
        for length in [0, 1, 55, 56, 64, 1000, 1 << 20] {
            let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let expected = try swiftCryptoKey.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation
            #expect(Data(try key.signature(for: message)) == expected, "message of \(length) bytes")
        }
    }

    @Test("one key signs from many tasks at once, and every signature is valid")
    func concurrentSigning() async throws {
        let key = try RSASigningKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = Array("token \(index)".utf8)
                    return key.isValidSignature(try key.signature(for: message), for: message)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }

    @Test("a PEM that is not an RSA private key is refused")
    func notAKey() {
        #expect(throws: (any Error).self) { try RSASigningKey(pemRepresentation: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----") }
        #expect(throws: (any Error).self) { try RSASigningKey(pemRepresentation: P256.Signing.PrivateKey().pemRepresentation) }
    }
}
