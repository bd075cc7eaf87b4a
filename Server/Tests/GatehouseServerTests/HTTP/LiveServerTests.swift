import Foundation
import Gatehouse
@testable import GatehouseServer
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Live server over loopback")
struct LiveServerTests {
    @Test("the SDK reads the discovery document and validates ID tokens from a running server")
    func sdkDiscovery() async throws {
        let port = try await TestServer.freePort()
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = TestServer.configuration(in: folder, port: port)
        let server = try await IdentityServer.start(configuration: configuration, logger: TestServer.logger)
        let running = AsyncStream<Int>.makeStream()
        let application = GatehouseApplication.make(server: server, logger: TestServer.logger) { port in running.continuation.yield(port) }
        let task = Task { try await application.run() }
        var iterator = running.stream.makeAsyncIterator()
        #expect(await iterator.next() == port)

        let issuer = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let metadata = try await ProviderDiscovery(issuer: issuer).metadata()
        #expect(metadata.issuer == issuer.absoluteString)
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.authorizationResponseIssParameterSupported)

        // The SDK's own validator accepts what the server (jwt-kit) signs, with keys fetched from the live JWKS.
        let validator = IDTokenValidator(issuer: metadata.issuer, clientID: "app",
                                         keys: RemoteKeySet(url: try #require(URL(string: metadata.jwksURI))))
        for algorithm in ["RS256", "ES256"] {
            let now = server.clock.now()
            let claims = GatehouseServer.IDTokenClaims(iss: metadata.issuer, sub: "user-1", aud: "app", exp: now + 60, iat: now,
                                                       authTime: now, nonce: "n-\(algorithm)", azp: "app", amr: ["pwd"])
            let token = try await server.keys.sign(claims, algorithm: algorithm)
            let validated = try await validator.validate(token, nonce: "n-\(algorithm)")
            #expect(validated.subject == "user-1" && validated.authenticationMethods == ["pwd"])
            await #expect(throws: IDTokenValidationError.self) { try await validator.validate(token, nonce: "another") }
        }

        // The same server seen under another name is rejected: the issuer must match exactly.
        let alias = try #require(URL(string: "http://localhost:\(port)"))
        await #expect(throws: DiscoveryError.issuerMismatch(expected: alias.absoluteString, found: issuer.absoluteString)) {
            try await ProviderDiscovery(issuer: alias).metadata()
        }
        task.cancel()
        _ = try? await task.value
        await server.shutdown()
    }

    @Test("names are escaped on the sign-in page")
    func escaping() async throws {
        try await TestServer.withServer { server in
            try await server.clients.create(id: "xss", name: "<script>alert(1)</script>", secret: String(repeating: "s", count: 32),
                                            redirectURIs: ["https://a.example/cb"], scopes: ["openid"])
            let application = Application(router: GatehouseApplication.makeRouter(server: server))
            try await application.test(.live) { client in
                let authorize = "/authorize?response_type=code&client_id=xss&redirect_uri=https%3A%2F%2Fa.example%2Fcb&scope=openid"
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
                #expect(location.hasPrefix("/login?request="))
                try await client.execute(uri: secondLocation, method: .get, headers: [.cookie: String(cookie)]) { response in
                    let body = String(buffer: response.body)
                    #expect(response.status == .ok)
                    #expect(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                    #expect(!body.contains("<script>"))
                }
            }
        }
    }

    @Test("unknown routes and oversized bodies get clear 4xx answers")
    func badInput() async throws {
        try await TestServer.withServer { server in
            let application = Application(router: GatehouseApplication.makeRouter(server: server))
            try await application.test(.live) { client in
                try await client.execute(uri: "/nowhere", method: .get) { response in
                    #expect(response.status == .notFound)
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
