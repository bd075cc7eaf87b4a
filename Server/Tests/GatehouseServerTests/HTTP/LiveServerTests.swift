import Foundation
import Gatehouse
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatehouseDomain
@testable import GatehouseServer

@Suite("Live server over loopback")
struct LiveServerTests {
    @Test("the SDK reads the discovery document and validates ID tokens from a running server")
    func sdkDiscovery() async throws {
        try await TestServer.withLiveServer { server, issuer in
            let metadata = try await ProviderDiscovery(issuer: issuer).metadata()
            #expect(metadata.issuer == issuer.absoluteString)
            #expect(metadata.codeChallengeMethodsSupported == ["S256"])
            #expect(metadata.authorizationResponseIssParameterSupported)

            // The SDK's own validator accepts what the server (jwt-kit) signs, with keys fetched from the live JWKS.
            let validator = IDTokenValidator(
                issuer: metadata.issuer, clientID: "app",
                keys: RemoteKeySet(url: try #require(URL(string: metadata.jwksURI))))
            for algorithm in ["RS256", "ES256"] {
                let now = server.clock.now()
                let claims = GatehouseDomain.IDTokenClaims(
                    iss: metadata.issuer, sub: "user-1", aud: "app", exp: now + 60, iat: now,
                    authTime: now, nonce: "n-\(algorithm)", azp: "app", amr: ["pwd"])
                let token = try await server.keys.sign(claims, algorithm: algorithm)
                let validated = try await validator.validate(token, nonce: "n-\(algorithm)")
                #expect(validated.subject == "user-1" && validated.authenticationMethods == ["pwd"])
                await #expect(throws: IDTokenValidationError.self) { try await validator.validate(token, nonce: "another") }
            }

            // The same server seen under another name is rejected: the issuer must match exactly.
            let alias = try #require(URL(string: issuer.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")))
            await #expect(throws: DiscoveryError.issuerMismatch(expected: alias.absoluteString, found: issuer.absoluteString)) {
                try await ProviderDiscovery(issuer: alias).metadata()
            }
        }
    }

    @Test("the SDK's user session shares one refresh among concurrent callers, stores, restores and revokes", arguments: TestEngine.available)
    func userSession(engine: TestEngine) async throws {
        try await TestServer.withLiveServer(engine: engine) { server, issuer in
            let hash = try await server.hasher.hash("a fine password")
            let user = try await server.users.create(username: "sam", email: "sam@example.com", name: "Sam", passwordHash: hash)
            try await server.clients.create(id: "app", secret: nil, redirectURIs: ["com.example.app:/cb"], scopes: ClientRegistrationRules.defaultScopes)
            let grant = Grant(
                id: "grant-1", clientID: "app", userID: user.id, scopes: ["openid", "profile", "offline_access"],
                authTime: server.clock.now(), methods: ["pwd"])
            let issued = try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: server.configuration.tokens)

            let folder = try TestServer.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let configuration = GatehouseConfiguration(
                issuer: issuer, clientID: "app", redirectURI: "com.example.app:/cb",
                tokenStorage: EncryptedFileTokenStorage(directory: folder.appendingPathComponent("tokens")))
            let metadata = try await ProviderDiscovery(issuer: issuer).metadata()
            // An access token that is already expired: the next caller must refresh.
            let stale = TokenSet(
                accessToken: issued.accessToken, expiresAt: Date(timeIntervalSinceNow: -1), refreshToken: issued.refreshToken, scope: grant.scope)
            let session = try await UserSession.start(with: stale, configuration: configuration, metadata: metadata)

            let accessTokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await session.accessToken() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(accessTokens.count == 1)
            let fresh = try #require(await session.currentTokens)
            #expect(fresh.accessToken != issued.accessToken && fresh.refreshToken != issued.refreshToken)
            // Had the old refresh token been sent twice, the server would have revoked the whole family.
            #expect(try await server.tokens.activeRefreshToken(try #require(fresh.refreshToken)) != nil)
            #expect(try await server.tokens.activeAccessToken(fresh.accessToken) != nil)

            let restored = try #require(try await UserSession.restore(configuration: configuration, metadata: metadata))
            #expect(await restored.currentTokens == fresh)
            let info = try await restored.userinfo()
            #expect(info.subject == user.id && info.preferredUsername == "sam")

            try await restored.revoke()
            #expect(try await server.tokens.activeAccessToken(fresh.accessToken) == nil)
            #expect(try await UserSession.restore(configuration: configuration, metadata: metadata) == nil)
            await #expect(throws: GatehouseError.signedOut) { try await session.refresh() }
        }
    }

    @Test("names are escaped on the sign-in page")
    func escaping() async throws {
        try await TestServer.withServer { server in
            try await server.clients.create(
                id: "xss", name: "<script>alert(1)</script>", secret: String(repeating: "s", count: 32),
                redirectURIs: ["https://a.example/cb"], scopes: ["openid"])
            let application = Application(router: GatehouseApplication.makeRouter(server: server))
            try await application.test(.live) { client in
                let authorize =
                    "/authorize?response_type=code&client_id=xss&redirect_uri=https%3A%2F%2Fa.example%2Fcb&scope=openid"
                    + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
                let location = try await client.execute(uri: authorize, method: .get) { response in
                    #expect(response.status == .found)
                    return try #require(response.headers[.location])
                }
                let cookie = try await client.execute(uri: authorize, method: .get) { response in
                    try #require(response.headers[.setCookie]).split(separator: ";")[0]
                }
                let secondLocation = try await client.execute(uri: authorize, method: .get, headers: [.cookie: String(cookie)]) { response in
                    try #require(response.headers[.location])
                }
                #expect(location.hasPrefix("/login?flow="))
                try await client.execute(uri: secondLocation, method: .get, headers: [.cookie: String(cookie)]) { response in
                    let body = String(buffer: response.body)
                    #expect(response.status == .ok)
                    #expect(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                    #expect(!body.contains("<script>"))
                }
            }
        }
    }

    @Test("the hosted pages' stylesheet and script are served from the package's resources")
    func assets() async throws {
        try await TestServer.withServer { server in
            let application = Application(router: GatehouseApplication.makeRouter(server: server))
            try await application.test(.router) { client in
                for (path, type, content) in [
                    ("/assets/gatehouse.css", "text/css", "color-scheme"), ("/assets/app-login.js", "text/javascript", "EventSource"),
                ] {
                    try await client.execute(uri: path, method: .get) { response in
                        #expect(response.status == .ok)
                        #expect(response.headers[.contentType]?.hasPrefix(type) == true)
                        #expect(String(buffer: response.body).contains(content))
                    }
                }
            }
        }
    }

    @Test("unknown routes and oversized bodies get clear 4xx answers")
    func badInput() async throws {
        try await TestServer.withServer { server in
            let application = Application(router: GatehouseApplication.makeRouter(server: server))
            try await application.test(.live) { client in
                // An unknown route passes the same middleware as a known one: security headers, a request id, a JSON body.
                for (uri, method) in [("/nowhere", HTTPRequest.Method.get), ("/admin/v1/nothing-here", .post), ("/token/extra", .delete)] {
                    try await client.execute(uri: uri, method: method) { response in
                        #expect(response.status == .notFound, "\(uri)")
                        #expect(
                            response.headers[.xFrameOptions] == "DENY" && response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(uri)")
                        #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true, "\(uri)")
                        #expect(response.headers[.xRequestID]?.isEmpty == false, "\(uri)")
                        #expect(String(buffer: response.body).contains("\"error\":\"not_found\""), "\(uri)")
                    }
                }
                let huge = ByteBuffer(string: "grant_type=client_credentials&pad=" + String(repeating: "a", count: 70_000))
                try await client.execute(uri: "/token", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: huge) { response in
                    #expect(response.status == .contentTooLarge)
                    #expect(String(buffer: response.body).contains("\"error\":\"invalid_request\""))
                }
                try await client.execute(uri: "/userinfo", method: .get, headers: [.authorization: "Basic abc"]) { response in
                    #expect(response.status == .unauthorized)
                }
            }
        }
    }
}
