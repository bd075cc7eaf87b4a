import Foundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

@Suite("Client authentication at the token endpoint")
struct ClientAuthenticatorTests {
    /// `Basic` credentials as RFC 6749 §2.3.1 has a client send them: each part form-urlencoded, then base64.
    private static func basic(_ id: String, _ secret: String) -> String {
        "Basic " + base64(FormEncoding.encode(id) + ":" + FormEncoding.encode(secret))
    }

    private static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test("Basic credentials are base64 of id:secret with both parts form-urlencoded; a colon in the secret stays")
    func decodesBasicCredentials() throws {
        let decoded = try #require(ClientAuthenticator.basicCredentials(Self.base64("svc%3Aone:p%2Bss+w%C3%B6rd:x")))
        #expect(decoded.id == "svc:one" && decoded.secret == "p+ss wörd:x")
        let plain = try #require(ClientAuthenticator.basicCredentials(Self.base64("app:")))
        #expect(plain.id == "app" && plain.secret == "")
    }

    @Test("a broken escape, bytes that are not UTF-8, a missing colon or text that is not base64 are refused")
    func refusesBrokenCredentials() {
        for broken in ["app:%zz", "app%4:secret", "app:%C3", "appsecret"] {
            #expect(ClientAuthenticator.basicCredentials(Self.base64(broken)) == nil, "\(broken)")
        }
        #expect(ClientAuthenticator.basicCredentials("not base64!") == nil)
    }

    @Test("client_secret_jwt MACs check against RFC 7515 §A.1's HS256 example; another key, algorithm or signature fails")
    func checksMACsAgainstThePublishedExample() throws {
        let token =
            "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
            + "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let key = try #require(Base64URL.decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"))
        let jws = try #require(CompactJWS(token))
        #expect(jws.algorithm == "HS256")
        #expect(ClientAssertionVerifier.isMACed(jws, with: key))
        #expect(!ClientAssertionVerifier.isMACed(jws, with: key.dropLast() + Data([0])))
        let tampered = try #require(CompactJWS(token.replacingOccurrences(of: ".dBjf", with: ".eBjf")))
        #expect(!ClientAssertionVerifier.isMACed(tampered, with: key))
        let otherAlgorithm = try #require(
            CompactJWS("eyJhbGciOiJIUzM4NCJ9." + token.split(separator: ".")[1] + "." + token.split(separator: ".")[2]))
        #expect(!ClientAssertionVerifier.isMACed(otherAlgorithm, with: key))
    }

    @Test("a confidential client authenticates with its form-encoded secret; the secret unencoded or wrong is invalid_client")
    func authenticatesWithBasic() async throws {
        try await TestServer.withServer { server in
            let secret = "s3cret+with/odd=chars:and more"
            try await server.clients.create(id: "svc:one", secret: secret, redirectURIs: [], scopes: ["api"])
            let authenticator = server.clientAuthenticator
            func authenticate(_ authorization: String, form: String = "grant_type=client_credentials") async throws -> Client {
                let request = Request(
                    head: HTTPRequest(
                        method: .post, scheme: "http", authority: "127.0.0.1", path: "/token",
                        headerFields: [.authorization: authorization]),
                    body: RequestBody(buffer: ByteBuffer())
                )
                return try await authenticator.authenticate(request, parameters: FormParameters(encoded: form), path: "/token")
            }

            #expect(try await authenticate(Self.basic("svc:one", secret)).id == "svc:one")
            let refused = [
                "Basic " + Self.base64("svc%3Aone:" + secret),  // its + read as a space
                "Basic " + Self.base64("svc:one:" + secret),  // the client "svc"
                Self.basic("svc:one", secret + "x"),
                "Basic " + Self.base64("svc%3Aone:%zz"),
            ]
            for refused in refused {
                await #expect {
                    try await authenticate(refused)
                } throws: { error in
                    (error as? OAuthError)?.code == .invalidClient && (error as? OAuthError)?.status == .unauthorized
                }
            }
            await #expect {
                try await authenticate(Self.basic("svc:one", secret), form: "grant_type=client_credentials&client_id=other")
            } throws: { error in
                (error as? OAuthError)?.code == .invalidRequest
            }
        }
    }

    @Test("an empty secret is no secret: a public client sending `id:` in Basic or an empty client_secret is the client; a confidential one is not")
    func emptySecretIsNoSecret() async throws {
        try await TestServer.withServer { server in
            try await server.clients.create(id: "tv", secret: nil, redirectURIs: ["http://127.0.0.1/cb"], scopes: ["openid"])
            try await server.clients.create(id: "svc", secret: "a-confidential-secret-0123456789abcdef", redirectURIs: [], scopes: ["api"])
            let authenticator = server.clientAuthenticator
            func authenticate(_ authorization: String?, form: String) async throws -> Client {
                var fields = HTTPFields()
                if let authorization { fields[.authorization] = authorization }
                let request = Request(
                    head: HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/token", headerFields: fields),
                    body: RequestBody(buffer: ByteBuffer()))
                return try await authenticator.authenticate(request, parameters: FormParameters(encoded: form), path: "/token")
            }
            // oidc-agent's way, and the form's: both the same as sending the id alone.
            #expect(try await authenticate(Self.basic("tv", ""), form: "grant_type=x").id == "tv")
            #expect(try await authenticate(nil, form: "grant_type=x&client_id=tv&client_secret=").id == "tv")
            #expect(try await authenticate(nil, form: "grant_type=x&client_id=tv").id == "tv")
            for (authorization, form) in [(Self.basic("svc", ""), "grant_type=x"), (nil, "grant_type=x&client_id=svc&client_secret=")] {
                await #expect {
                    try await authenticate(authorization, form: form)
                } throws: { error in
                    (error as? OAuthError)?.code == .invalidClient
                }
            }
            // A public client that sends a secret is still refused: it has none to send.
            await #expect {
                try await authenticate(Self.basic("tv", "guess"), form: "grant_type=x")
            } throws: { error in
                (error as? OAuthError)?.code == .invalidClient
            }
        }
    }
}
