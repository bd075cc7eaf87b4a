import Foundation
import GatehouseProtocol
import Testing

/// RFC 7638 thumbprints against the published examples, and signatures of every DPoP algorithm made with swift-crypto.
@Suite("JWK thumbprints and JWS signatures")
struct JSONWebKeyThumbprintTests {
    @Test("RFC 9449 §4.2's example key has §6.1's cnf.jkt")
    func rfc9449Example() {
        let key = JSONWebKey(
            keyType: "EC", keyID: nil, use: nil, algorithm: nil, curve: "P-256", x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
            y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA")
        #expect(key.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test("RFC 7638 §3.1's example RSA key has its published thumbprint")
    func rfc7638Example() {
        let modulus =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        let key = JSONWebKey(keyType: "RSA", keyID: "2011-04-29", use: nil, algorithm: "RS256", modulus: modulus, exponent: "AQAB")
        #expect(key.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("a key type without required members has no thumbprint")
    func incomplete() {
        #expect(JSONWebKey(keyType: "EC", keyID: nil, algorithm: nil, curve: "P-256", x: "AA").thumbprint == nil)
        #expect(JSONWebKey(keyType: "oct", keyID: nil, algorithm: nil).thumbprint == nil)
    }
}
