import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("JSON object writer")
struct JSONObjectWriterTests {
    /// Strings that need every kind of escape RFC 8259 §7 asks for, and some that need none.
    static let awkwardStrings = [
        "plain", "", "quote \" and \\ backslash", "line\nbreak\r\ttab", "\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}",
        "café ✓ 𝄞", "</script>", "a/b", "\u{2028}\u{2029}",
    ]

    @Test("strings with quotes, backslashes, control characters and non-ASCII read back unchanged with JSONSerialization")
    func escapesStrings() throws {
        for text in Self.awkwardStrings {
            var writer = JSONObjectWriter()
            writer.member("text", text)
            writer.member("list", [text, "x"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.finish())) as? [String: Any])
            #expect(object["text"] as? String == text)
            #expect(object["list"] as? [String] == [text, "x"])
        }
    }

    @Test("integers, booleans and absent members are written as JSONEncoder writes them")
    func writesScalars() throws {
        var writer = JSONObjectWriter()
        writer.member("a", Int64.min)
        writer.member("b", Int64.max)
        writer.member("c", 0 as Int?)
        writer.member("d", true)
        writer.member("e", false)
        writer.member("f", nil as String?)
        writer.member("g", [String]())
        #expect(
            String(decoding: writer.finish(), as: UTF8.self)
                == #"{"a":-9223372036854775808,"b":9223372036854775807,"c":0,"d":true,"e":false,"g":[]}"#)
        #expect(JSONObjectWriter().finish() == Array("{}".utf8))
    }

    @Test("userinfo, ID token, access token and token response documents carry the same members as their Codable encoding")
    func agreesWithEncoder() throws {
        for text in Self.awkwardStrings {
            try expectSameDocument(
                UserinfoClaims(
                    sub: "user-1", preferredUsername: text, name: text, givenName: nil, familyName: "F",
                    updatedAt: 1_700_000_000, email: "a@example.com", emailVerified: false,
                    phoneNumber: nil, phoneNumberVerified: true))
            try expectSameDocument(
                IDTokenClaims(
                    iss: "http://127.0.0.1:8080", sub: "user-1", aud: "app", exp: 1_700_000_600,
                    iat: 1_700_000_000, authTime: 1_699_999_000, nonce: text, azp: "app",
                    amr: ["pwd", text], acr: nil, sid: "s", name: text, givenName: nil,
                    familyName: nil, preferredUsername: "alice", email: nil, emailVerified: true))
            try expectSameDocument(TokenResponse(accessToken: "a-\(text)", expiresIn: 600, refreshToken: nil, idToken: "x.y.z", scope: "openid"))
            let address = PostalAddress(formatted: text, streetAddress: "1 Harbour St\nFlat 2", locality: "Springfield", country: "DE")
            var withAddress = UserinfoClaims(sub: "user-2")
            withAddress.address = address
            try expectSameDocument(withAddress)
            var full = IDTokenClaims(iss: "i", sub: "user-2", aud: "app", exp: 2, iat: 1, authTime: 1, azp: "app")
            full.address = address
            full.phoneNumber = "+491234"
            full.phoneNumberVerified = false
            full.updatedAt = 1_700_000_000
            full.atHash = "77QmUPtjPfzWtF2AnpK9RQ"
            try expectSameDocument(full)
        }
        try expectSameDocument(
            AccessTokenClaims(
                iss: "http://127.0.0.1:8080", sub: "user-1", aud: "https://api.example.com", clientID: "web", scope: "notes:read",
                jti: "j", exp: 1_700_000_600, iat: 1_700_000_000, authTime: 1_699_999_000, acr: "urn:gatehouse:acr:password", amr: ["pwd"],
                jkt: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I", actors: ["gateway", "notes-api", "quote \" and \\ backslash"]))
        try expectSameDocument(
            AccessTokenClaims(iss: "i", sub: "worker", aud: "urn:x:y", clientID: "worker", scope: nil, jti: "j", exp: 2, iat: 1))
        try expectSameDocument(LogoutTokenClaims(iss: "i", aud: "web", iat: 1, exp: 121, jti: "j", sub: "user-1", sid: "s-1"))
        try expectSameDocument(LogoutTokenClaims(iss: "i", aud: "web", iat: 1, exp: 121, jti: "j", sub: "user-1", sid: nil))
        try expectSameDocument(UserinfoClaims(sub: "only-sub"))
        try expectSameDocument(TokenResponse(accessToken: "a", expiresIn: 0))
    }

    private func expectSameDocument<Document: JSONObjectWritable>(_ document: Document, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try JSONSerialization.jsonObject(with: Data(document.jsonBytes)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(document)) as? NSDictionary
        #expect(written != nil && written == encoded, "\(document)", sourceLocation: sourceLocation)
    }
}
