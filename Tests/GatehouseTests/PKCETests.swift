import Crypto
import Foundation
import GatehouseProtocol
import Testing

@Suite("PKCE (RFC 7636)")
struct PKCETests {
    @Test("S256 challenge matches RFC 7636 Appendix B")
    func appendixBVector() {
        // The verifier is the base64url encoding of these 32 octets (RFC 7636 Appendix B).
        let octets: [UInt8] = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
            22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ]
        #expect(Base64URL.encode(octets) == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.isValidVerifier(verifier))
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("verifier syntax: 43 to 128 unreserved characters")
    func verifierSyntax() {
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
        #expect(PKCE.isValidVerifier(String(repeating: "a", count: 43)))
        #expect(PKCE.isValidVerifier(String(repeating: "~", count: 128)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "+"))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "é"))
    }

    @Test("generated verifiers are valid and distinct")
    func generatedVerifiers() {
        let first = PKCE.makeVerifier()
        let second = PKCE.makeVerifier()
        #expect(PKCE.isValidVerifier(first))
        #expect(first != second)
        #expect(PKCE.isValidChallenge(PKCE.challenge(for: first)))
    }
}

@Suite("Base64URL")
struct Base64URLTests {
    @Test("round trip without padding, RFC 4648 alphabet")
    func roundTrip() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf, 0x01]
        let text = Base64URL.encode(bytes)
        #expect(text == "-_-_AQ")
        #expect(Base64URL.decode(text).map(Array.init) == bytes)
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab+c") == nil)
    }

    @Test("RFC 4648 §10 test vectors, without padding; padded text decodes too")
    func rfc4648Vectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded).map { String(decoding: $0, as: UTF8.self) } == plain)
        }
        #expect(Base64URL.decode("Zm9vYg==").map { String(decoding: $0, as: UTF8.self) } == "foob")
    }

    @Test("every length up to 64 bytes and every byte value round-trip, and agree with Foundation's base64")
    func agreesWithFoundation() {
        let bytes = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } + Array(0...255)
        for length in 0...bytes.count {
            let slice = Array(bytes.prefix(length))
            let text = Base64URL.encode(slice)
            let foundation = Data(slice).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(text == foundation)
            #expect(Base64URL.decode(text).map(Array.init) == slice)
        }
    }

    @Test("refuses padding inside the text, characters outside the alphabet, and non-zero leftover bits")
    func refusesMalformedText() {
        #expect(Base64URL.decode("Zg=v") == nil)
        #expect(Base64URL.decode("Zm9v YmFy") == nil)
        #expect(Base64URL.decode("Zm9vé") == nil)
        // "Zh" carries the byte "f" plus the leftover bits 0001; only "Zg" is the encoding of "f".
        #expect(Base64URL.decode("Zh") == nil)
    }
}

@Suite("Shared encodings and comparisons")
struct SharedPrimitivesTests {
    @Test("constant-time comparison")
    func constantTime() {
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "abcd"))
    }

    @Test("Base32 matches the RFC 4648 §10 vectors and round-trips")
    func base32() {
        let vectors = [
            ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8), padded: true) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.decode("mzxw 6ytb oi") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
    }

    @Test("hex encoding matches the FIPS 180-2 SHA-256 vector for \"abc\"")
    func hex() {
        #expect(Hex.encode(SHA256.hash(data: Data("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode([0x00, 0x0f, 0xf0, 0xff]) == "000ff0ff" && Hex.encode([UInt8]()) == "")
    }

    @Test("form encoding leaves only unreserved characters and drops absent values")
    func formEncoding() {
        #expect(FormEncoding.encode("a b+c/d=é~") == "a%20b%2Bc%2Fd%3D%C3%A9~")
        #expect(
            FormEncoding.encode([("code", "x&y"), ("state", nil), ("iss", "https://id.example.com")])
                == "code=x%26y&iss=https%3A%2F%2Fid.example.com")
    }
}
