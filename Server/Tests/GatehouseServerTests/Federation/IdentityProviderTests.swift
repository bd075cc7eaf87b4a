import Crypto
import Foundation
import GatehouseProtocol
import JWTKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The `identity_providers` configuration, its presets and checks; mapping a provider's claims to a profile; the JWTs
/// Gatehouse signs for providers; loopback redirect URIs on any port.
@Suite("Identity providers")
struct IdentityProviderTests {
    static func load(_ json: String) throws -> ServerConfiguration {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        try Data(json.utf8).write(to: file)
        return try ConfigurationLoader(environment: [:]).load(configFile: file.path)
    }

    @Test("presets are configuration: GitHub, Google, Microsoft and Apple fill in what they need, and any key given wins")
    func presets() throws {
        let configuration = try Self.load(
            """
            {"identity_providers": [
              {"id": "github", "preset": "github", "client_id": "gh", "client_secret": "s", "name": "GitHub Enterprise"},
              {"id": "google", "preset": "google", "client_id": "g", "client_secret": "s"},
              {"id": "ms", "preset": "microsoft", "client_id": "m", "client_secret": "s"},
              {"id": "contoso", "preset": "microsoft", "tenant": "contoso.onmicrosoft.com", "client_id": "m", "client_secret": "s"}
            ]}
            """)
        let github = try #require(configuration.flowSettings.identityProvider("github"))
        #expect(github.kind == .oauth2 && github.name == "GitHub Enterprise" && github.claims.subject == "id" && github.claims.username == "login")
        #expect(github.emailsEndpoint == "https://api.github.com/user/emails" && github.trustEmail)
        let google = try #require(configuration.flowSettings.identityProvider("google"))
        #expect(google.kind == .oidc && google.issuer == "https://accounts.google.com" && google.scopes == ["openid", "email", "profile"])
        #expect(configuration.flowSettings.identityProvider("ms")?.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
        #expect(configuration.flowSettings.identityProvider("ms")?.tokenEndpoint == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(configuration.flowSettings.identityProvider("contoso")?.issuer == "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0")
    }

    @Test("Apple's preset needs its key, key id and team id; with them its client secret is an ES256 JWT from the team")
    func apple() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = P256.Signing.PrivateKey()
        let path = folder.appendingPathComponent("AuthKey.p8").path
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: path))
        let missing = #expect(throws: ConfigurationError.self) {
            try Self.load(#"{"identity_providers": [{"id": "apple", "preset": "apple", "client_id": "com.example.web"}]}"#)
        }
        #expect(missing?.key == "identity_providers[0].private_key_file")
        let configuration = try Self.load(
            #"{"identity_providers": [{"id": "apple", "preset": "apple", "client_id": "com.example.web", "private_key_file": "\#(path)", "key_id": "KEY123", "team_id": "TEAM456"}]}"#
        )
        let apple = try #require(configuration.flowSettings.identityProvider("apple"))
        #expect(apple.responseMode == "form_post" && apple.clientAuthentication == .appleClientSecret)
        let secret = try ClientAssertionSigner(pemFile: path, keyID: apple.keyID).appleClientSecret(teamID: "TEAM456", clientID: "com.example.web", now: 1_000)
        let parts = secret.split(separator: ".").map(String.init)
        let header = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[0]))) as? [String: Any]
        let claims = try JSONSerialization.jsonObject(with: try #require(Base64URL.decode(parts[1]))) as? [String: Any]
        #expect(header?["alg"] as? String == "ES256" && header?["kid"] as? String == "KEY123")
        #expect(claims?["iss"] as? String == "TEAM456" && claims?["sub"] as? String == "com.example.web")
        #expect(claims?["aud"] as? String == "https://appleid.apple.com" && claims?["exp"] as? Int == 1_300)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    }

    @Test("a private_key_jwt assertion verifies with jwt-kit: the client as iss and sub, the token endpoint as aud, one minute, a jti")
    func privateKeyJWT() async throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = P256.Signing.PrivateKey()
        let path = folder.appendingPathComponent("client.pem").path
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: path))
        let assertion = try ClientAssertionSigner(pemFile: path, keyID: "k1").clientAssertion(
            clientID: "gatehouse", tokenEndpoint: "https://id.example/token", now: Int64(Date().timeIntervalSince1970))
        struct Assertion: JWTPayload {
            var iss: IssuerClaim
            var sub: SubjectClaim
            var aud: AudienceClaim
            var exp: ExpirationClaim
            var jti: IDClaim
            func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
        }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PublicKey(pem: key.publicKey.pemRepresentation), kid: "k1")
        let verified = try await keys.verify(assertion, as: Assertion.self)
        #expect(verified.iss.value == "gatehouse" && verified.sub.value == "gatehouse" && verified.aud.value == ["https://id.example/token"])
        #expect(!verified.jti.value.isEmpty)
    }

    @Test("mistakes name the provider's key: a missing secret, plain http elsewhere than loopback, a reused id, oidc without openid, native tokens from oauth2")
    func mistakes() throws {
        let cases: [(String, String)] = [
            (#"{"id": "x", "issuer": "https://id.example", "client_id": "c"}"#, "identity_providers[0].client_secret"),
            (#"{"id": "x", "issuer": "http://id.example", "client_id": "c", "client_secret": "s"}"#, "identity_providers[0].issuer"),
            (#"{"id": "X!", "issuer": "https://id.example", "client_id": "c", "client_secret": "s"}"#, "identity_providers[0].id"),
            (#"{"id": "x", "kind": "oauth2", "client_id": "c", "client_secret": "s"}"#, "identity_providers[0].authorization_endpoint"),
            (#"{"id": "x", "issuer": "https://id.example", "client_id": "c", "client_secret": "s", "scopes": ["email"]}"#, "identity_providers[0].scopes"),
            (
                #"{"id": "x", "kind": "oauth2", "authorization_endpoint": "https://a.example/a", "token_endpoint": "https://a.example/t", "userinfo_endpoint": "https://a.example/u", "client_id": "c", "client_secret": "s", "native": true}"#,
                "identity_providers[0].native"
            ),
            (
                #"{"id": "x", "issuer": "https://id.example", "client_id": "c", "client_secret": "s", "native": true, "native_audiences": [""]}"#,
                "identity_providers[0].native_audiences"
            ),
            (
                #"{"id": "x", "issuer": "https://id.example", "client_id": "c", "client_secret": "s"}, {"id": "x", "issuer": "https://b.example", "client_id": "c", "client_secret": "s"}"#,
                "identity_providers[1].id"
            ),
        ]
        for (providers, key) in cases {
            let error = #expect(throws: ConfigurationError.self) { try Self.load(#"{"identity_providers": [\#(providers)]}"#) }
            #expect(error?.key == key, "\(providers)")
        }
        let unknown = #expect(throws: (any Error).self) {
            try Self.load(
                #"{"identity_providers": [{"id": "x", "issuer": "https://id.example", "client_id": "c", "client_secret": "s", "trust_emails": true}]}"#)
        }
        #expect("\(unknown.map { "\($0)" } ?? "")".contains("trust_emails"))
    }

    @Test("claims map to a profile: GitHub's numeric id, an address marked verified only by a trusted provider, nothing without a subject")
    func profile() throws {
        var github = IdentityProvider(id: "github", name: "GitHub", kind: .oauth2, clientID: "c")
        github.claims.subject = "id"
        github.claims.username = "login"
        let octocat = try #require(
            UpstreamProfile(claims: ["id": 583231, "login": "octocat", "email": "Octo@GitHub.example", "email_verified": true], provider: github))
        #expect(octocat.subject == "583231" && octocat.username == "octocat" && octocat.email == "octo@github.example")
        #expect(!octocat.emailVerified, "an untrusted provider's email_verified is not believed")
        github.trustEmail = true
        #expect(UpstreamProfile(claims: ["id": 1, "email": "a@b.example", "email_verified": true], provider: github)?.emailVerified == true)
        #expect(UpstreamProfile(claims: ["id": 1, "email": "a@b.example", "email_verified": "true"], provider: github)?.emailVerified == true)
        #expect(UpstreamProfile(claims: ["id": 1, "email": "not an address", "email_verified": true], provider: github)?.email == nil)
        #expect(UpstreamProfile(claims: ["login": "no-id"], provider: github) == nil)
        #expect(LoginFlow.usernameCharacters("Ünïcode Name@x") == "ncodenamex")
    }

    @Test("a loopback IP redirect URI matches on any port (RFC 8252 §7.3); other URIs only exactly")
    func loopbackRedirects() {
        let client = Client(
            id: "cli", name: nil, secretHash: nil, redirectURIs: ["http://127.0.0.1/callback", "http://[::1]/cb", "https://app.example/cb"],
            postLogoutRedirectURIs: ["http://[::1]/cb"], scopes: ["openid"], idTokenAlgorithm: "RS256", createdAt: 0)
        #expect(client.allowsRedirect(to: "http://127.0.0.1:53123/callback") && client.allowsRedirect(to: "http://[::1]:8000/cb"))
        #expect(client.allowsRedirect(to: "https://app.example/cb"))
        #expect(!client.allowsRedirect(to: "http://127.0.0.1:53123/other") && !client.allowsRedirect(to: "https://app.example:444/cb"))
        #expect(!client.allowsRedirect(to: "http://localhost:53123/callback") && !client.allowsRedirect(to: "http://127.0.0.2:53123/callback"))
        #expect(!client.allowsRedirect(to: "http://127.0.0.1:53123/callback?x=1"))
        // Only ports a listener can have: 1 to 65535.
        #expect(client.allowsRedirect(to: "http://127.0.0.1:1/callback") && client.allowsRedirect(to: "http://127.0.0.1:65535/callback"))
        for port in ["0", "65536", "99999", "-1", "+80"] {
            #expect(!client.allowsRedirect(to: "http://127.0.0.1:\(port)/callback"), "port \(port)")
            #expect(!client.allowsPostLogoutRedirect(to: "http://[::1]:\(port)/cb"), "port \(port)")
        }
        // Nor may one be registered with such a port.
        for uri in ["http://127.0.0.1:0/cb", "http://127.0.0.1:99999/cb", "https://app.example:65536/cb"] {
            #expect(throws: ConfigurationError.self, "\(uri)") { try ClientRegistrationRules.validateRedirectURI(uri) }
        }
        #expect((try? ClientRegistrationRules.validateRedirectURI("http://127.0.0.1:65535/cb")) != nil)
    }
}
