import Foundation
import Gatehouse
import GatehouseProtocol
import GatehouseResourceServer
import GatehouseResourceServerHummingbird
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The resource-server library, as a Swift API would use it, against a live Gatehouse on loopback: JWT and opaque
/// tokens, a wrong audience and a missing scope, DPoP-bound tokens with their proofs, a signing key rotated while the
/// API runs, and the Hummingbird middleware's answers.
@Suite("The resource-server library against a live Gatehouse")
struct ResourceServerLiveTests {
    static let notes = "https://notes.example.com"
    static let ledger = "urn:example:ledger"
    static let search = "https://search.example.com"
    static let workerSecret = "worker-client-secret-0123456789-abcdefghijkl"
    static let apiSecret = "notes-api-client-secret-0123456789-abcdefghi"

    /// The resources and clients of every test: a JWT API, an opaque one, a worker that may ask for both, and the
    /// client the ledger API introspects as.
    private func prepare(_ server: IdentityServer) async throws {
        try await server.database.transaction { sql in
            try await server.resources.create(
                Resource(
                    id: Self.notes, name: "Notes", scopes: [.init(name: "notes:read", description: "Read"), .init(name: "notes:write", description: "Write")],
                    allowedClients: ["worker"]), in: sql)
            try await server.resources.create(
                Resource(
                    id: Self.ledger, name: "Ledger", scopes: [.init(name: "ledger:read", description: "Read")], tokenFormat: .opaque,
                    allowedClients: ["worker"], introspectionClients: ["ledger-api"]), in: sql)
            try await server.resources.create(
                Resource(
                    id: Self.search, name: "Search", scopes: [.init(name: "search:query", description: "Search")], tokenAlgorithm: .es256,
                    allowedClients: ["worker"]), in: sql)
        }
        try await server.clients.create(id: "worker", secret: Self.workerSecret, redirectURIs: ["https://worker.example/cb"], scopes: ["openid"])
        try await server.clients.create(id: "ledger-api", secret: Self.apiSecret, redirectURIs: ["https://ledger.example/cb"], scopes: ["openid"])
    }

    /// A token the worker gets for `resource` with `scope`, bound to `key` when given.
    private func token(_ issuer: URL, resource: String, scope: String, key: (any DPoPKey)? = nil) async throws -> String {
        var request = URLRequest(url: issuer.appendingPathComponent("token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("worker:\(Self.workerSecret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        if let key { request.setValue(try DPoPProof.make(with: key, method: "POST", url: request.url!), forHTTPHeaderField: "DPoP") }
        let escaped = resource.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? resource
        request.httpBody = Data("grant_type=client_credentials&resource=\(escaped)&scope=\(scope)".utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        return try JSONDecoder().decode(TokenResponse.self, from: data).accessToken
    }

    private func request(_ token: String, scheme: String = "Bearer", proof: String? = nil, path: String = "/notes") -> ResourceRequest {
        ResourceRequest(method: "GET", url: URL(string: Self.notes + path)!, authorization: "\(scheme) \(token)", dpop: proof)
    }

    private func refusal(_ body: () async throws(ResourceAccessError) -> AccessGrant) async -> ResourceAccessError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test("JWT tokens offline and opaque ones by introspection; another audience, a missing scope and a forged signature refused")
    func tokens() async throws {
        try await TestServer.withLiveServer { server, issuer in
            try await prepare(server)
            let notes = ResourceServer(configuration: ResourceServerConfiguration(issuer: issuer, resource: Self.notes, scopesSupported: ["notes:read"]))
            let jwt = try await token(issuer, resource: Self.notes, scope: "notes:read")
            let grant = try await notes.authorize(request(jwt), requiring: ["notes:read"])
            #expect(grant.subject == "worker" && grant.clientID == "worker" && grant.scopes == ["notes:read"] && grant.format == .jwt)

            let missing = await refusal { () async throws(ResourceAccessError) in try await notes.authorize(request(jwt), requiring: ["notes:write"]) }
            #expect(missing?.code == .insufficientScope && missing?.status == 403)
            let missingError = try #require(missing)
            #expect(notes.challenge(for: missingError).contains(#"scope="notes:write""#))

            // A token for the ledger, sent to the notes API; the notes API cannot introspect, nor is the token for it.
            let opaque = try await token(issuer, resource: Self.ledger, scope: "ledger:read")
            let elsewhere = await refusal { () async throws(ResourceAccessError) in try await notes.authorize(request(opaque)) }
            #expect(elsewhere?.code == .invalidToken && elsewhere?.status == 401)

            var parts = jwt.split(separator: ".").map(String.init)
            parts[2] = String(parts[2].reversed())
            let forged = await refusal { () async throws(ResourceAccessError) in try await notes.authorize(request(parts.joined(separator: "."))) }
            #expect(forged?.code == .invalidToken)
            let none = await refusal { () async throws(ResourceAccessError) in
                try await notes.authorize(ResourceRequest(method: "GET", url: URL(string: Self.notes)!, authorization: nil))
            }
            #expect(none?.code == nil && none?.status == 401)
            let noneError = try #require(none)
            #expect(notes.challenge(for: noneError) == #"Bearer resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource""#)

            // The ledger API introspects its opaque tokens with its own client; a JWT for the notes API is not for it.
            let ledger = ResourceServer(
                configuration: ResourceServerConfiguration(
                    issuer: issuer, resource: Self.ledger, introspection: IntrospectionCredentials(clientID: "ledger-api", clientSecret: Self.apiSecret)))
            let ledgerRequest = ResourceRequest(method: "GET", url: URL(string: "https://ledger.example.com/entries")!, authorization: "Bearer \(opaque)")
            let opaqueGrant = try await ledger.authorize(ledgerRequest, requiring: ["ledger:read"])
            #expect(opaqueGrant.format == .opaque && opaqueGrant.subject == "worker" && opaqueGrant.scopes == ["ledger:read"])
            let wrongAudience = await refusal { () async throws(ResourceAccessError) in
                try await ledger.authorize(ResourceRequest(method: "GET", url: URL(string: "https://ledger.example.com/")!, authorization: "Bearer \(jwt)"))
            }
            #expect(wrongAudience?.code == .invalidToken)
            try await server.tokens.revoke(opaque, clientID: "worker")
            let revoked = await refusal { () async throws(ResourceAccessError) in try await ledger.authorize(ledgerRequest) }
            #expect(revoked?.code == .invalidToken)
        }
    }

    @Test("a resource whose tokens are signed ES256 gets ES256 JWTs, which the library checks offline; an RS256 API's stay RS256")
    func es256Tokens() async throws {
        try await TestServer.withLiveServer { server, issuer in
            try await prepare(server)
            func header(_ token: String) throws -> [String: String] {
                let encoded = try #require(token.split(separator: ".").first.flatMap { Base64URL.decode(String($0)) })
                return try JSONDecoder().decode([String: String].self, from: encoded)
            }
            let search = ResourceServer(configuration: ResourceServerConfiguration(issuer: issuer, resource: Self.search))
            let signed = try await token(issuer, resource: Self.search, scope: "search:query")
            #expect(try header(signed)["alg"] == "ES256" && header(signed)["typ"] == "at+jwt")
            let grant = try await search.authorize(
                ResourceRequest(method: "GET", url: URL(string: Self.search + "/q")!, authorization: "Bearer \(signed)"), requiring: ["search:query"])
            #expect(grant.subject == "worker" && grant.format == .jwt && grant.scopes == ["search:query"])
            #expect(try header(try await token(issuer, resource: Self.notes, scope: "notes:read"))["alg"] == "RS256")
        }
    }

    @Test("a DPoP-bound token passes only as DPoP, with a proof by its key for this request and this token, once")
    func boundTokens() async throws {
        try await TestServer.withLiveServer { server, issuer in
            try await prepare(server)
            let notes = ResourceServer(configuration: ResourceServerConfiguration(issuer: issuer, resource: Self.notes))
            let key = try SoftwareDPoPKey()
            let bound = try await token(issuer, resource: Self.notes, scope: "notes:read", key: key)
            let url = URL(string: Self.notes + "/notes")!
            let proof = try DPoPProof.make(with: key, method: "GET", url: url, accessToken: bound)
            let grant = try await notes.authorize(request(bound, scheme: "DPoP", proof: proof))
            #expect(grant.keyThumbprint == key.publicKey.thumbprint)

            let replayed = await refusal { () async throws(ResourceAccessError) in try await notes.authorize(request(bound, scheme: "DPoP", proof: proof)) }
            #expect(replayed?.code == .invalidDPoPProof)
            let asBearer = await refusal { () async throws(ResourceAccessError) in try await notes.authorize(request(bound)) }
            let asBearerError = try #require(asBearer)
            #expect(asBearerError.code == .invalidToken && notes.challenge(for: asBearerError).hasPrefix("DPoP algs="))
            let otherKey = try SoftwareDPoPKey()
            let stolen = await refusal { () async throws(ResourceAccessError) in
                try await notes.authorize(
                    request(bound, scheme: "DPoP", proof: try! DPoPProof.make(with: otherKey, method: "GET", url: url, accessToken: bound)))
            }
            #expect(stolen?.code == .invalidDPoPProof)
            let otherPath = await refusal { () async throws(ResourceAccessError) in
                try await notes.authorize(
                    request(bound, scheme: "DPoP", proof: try! DPoPProof.make(with: key, method: "GET", url: url, accessToken: bound), path: "/admin"))
            }
            #expect(otherPath?.code == .invalidDPoPProof)
            // A bearer token where only bound ones are accepted.
            let strict = ResourceServer(configuration: ResourceServerConfiguration(issuer: issuer, resource: Self.notes, requiresDPoP: true))
            let bearer = try await token(issuer, resource: Self.notes, scope: "notes:read")
            let unbound = await refusal { () async throws(ResourceAccessError) in try await strict.authorize(request(bearer)) }
            #expect(unbound?.code == .invalidToken)
        }
    }

    @Test("a signing key rotated while the API runs: tokens signed by the new key pass once the keys are fetched again")
    func rotatedKey() async throws {
        let (clock, advance) = UnixClock.ahead()
        try await TestServer.withLiveServer(clock: clock) { server, issuer in
            try await prepare(server)
            let notes = ResourceServer(configuration: ResourceServerConfiguration(issuer: issuer, resource: Self.notes, leeway: 120))
            let before = try await token(issuer, resource: Self.notes, scope: "notes:read")
            _ = try await notes.authorize(request(before))
            let rotated = try await server.keyStore.rotate(secret: server.secret, publishFor: 900)
            // The server's key ring reloads within its interval; move its clock past it.
            advance(SigningKeyRing.defaultReloadInterval + 1)
            let after = try await token(issuer, resource: Self.notes, scope: "notes:read")
            let kid = try #require(CompactJWS(after)?.header["kid"] as? String)
            #expect(rotated.map(\.kid).contains(kid), "signed by the new key")
            let now = Date(timeIntervalSince1970: TimeInterval(clock.now()))
            #expect(try await notes.authorize(request(after), now: now).subject == "worker")
            #expect(try await notes.authorize(request(before), now: now).subject == "worker", "the retired key is still published")
        }
    }

    @Test("the Hummingbird middleware lets a valid token through with its grant, answers others with the challenge, serves the metadata")
    func hummingbird() async throws {
        try await TestServer.withLiveServer { server, issuer in
            try await prepare(server)
            let notes = ResourceServer(
                configuration: ResourceServerConfiguration(issuer: issuer, resource: Self.notes, resourceName: "Notes", scopesSupported: ["notes:read"]))
            let router = Router(context: GatehouseAPIContext.self)
            router.addProtectedResourceMetadata(for: notes)
            router.group("notes").add(middleware: GatehouseAuthentication(notes, requiring: ["notes:read"]))
                .get { _, context in "notes of \(context.accessGrant?.subject ?? "nobody")" }
            let jwt = try await token(issuer, resource: Self.notes, scope: "notes:read")
            let writer = try await token(issuer, resource: Self.notes, scope: "notes:write")
            try await Application(router: router).test(.router) { client in
                try await client.execute(uri: "/notes", method: .get, headers: [.authorization: "Bearer \(jwt)"]) { response in
                    #expect(response.status == .ok && String(buffer: response.body) == "notes of worker")
                }
                try await client.execute(uri: "/notes", method: .get) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate]?.contains("resource_metadata=") == true)
                }
                try await client.execute(uri: "/notes", method: .get, headers: [.authorization: "Bearer \(writer)"]) { response in
                    #expect(response.status == .forbidden)
                    let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String]
                    #expect(body?["error"] == "insufficient_scope")
                }
                try await client.execute(uri: "/.well-known/oauth-protected-resource", method: .get) { response in
                    let metadata = try JSONDecoder().decode(ProtectedResourceMetadata.self, from: Data(buffer: response.body))
                    #expect(metadata.resource == Self.notes && metadata.authorizationServers == [issuer.absoluteString])
                    #expect(metadata.scopesSupported == ["notes:read"] && metadata.resourceName == "Notes")
                }
            }
        }
    }
}
