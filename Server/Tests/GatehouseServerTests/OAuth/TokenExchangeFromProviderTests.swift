import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Token exchange (RFC 8693) of another identity provider's ID token: a second live Gatehouse is the provider; a client
/// whose policy names its issuer trades a person's ID token from it for a token for a resource, for the account the
/// identity is linked to here. Without the issuer in the policy, or for an identity linked to nobody, it is refused.
@Suite("Token exchange of an identity provider's ID token")
struct TokenExchangeFromProviderTests {
    static let secret = "exchanger-client-secret-0123456789-abcdefg"
    static let resource = "https://reports.example.com"

    private func exchange(_ issuer: URL, _ idToken: String, client: String) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: issuer.appendingPathComponent("token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("Basic " + Data("\(client):\(Self.secret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        request.httpBody = Data(
            ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=\(idToken)"
                + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&resource=https%3A%2F%2Freports.example.com").utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    @Test("the provider's ID token becomes a token for the linked account, only where the policy names the provider")
    func providerIDToken() async throws {
        try await TestServer.withLiveServer(hostName: "localhost") { upstream, upstreamIssuer in
            let uma = try await upstream.users.create(username: "uma", email: "uma@upstream.example", name: "Uma", passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
            let stranger = try await upstream.users.create(
                username: "stan", email: "stan@upstream.example", name: "Stan", passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
            let downstream = try await upstream.clients.create(
                id: "downstream", secret: Self.secret, redirectURIs: ["https://downstream.example/cb"], scopes: ClientRegistrationRules.defaultScopes)
            let issuer = IDTokenIssuer(issuer: upstream.issuer, lifetime: 600, keys: upstream.keys, clock: upstream.clock)
            func idToken(for user: User) async throws -> String {
                let grant = Grant(
                    id: SecureRandom.token(byteCount: 16), clientID: "downstream", userID: user.id, scopes: ["openid"], authTime: upstream.clock.now(),
                    methods: ["pwd"])
                return try await issuer.issue(for: grant, user: user, client: downstream, nonce: nil)
            }
            try await TestServer.withLiveServer(configure: {
                $0.identityProviders = [IdentityProvider(id: "upstream", name: "Upstream", issuer: upstreamIssuer.absoluteString, clientID: "downstream")]
            }) { server, serverIssuer in
                _ = try await server.database.transaction { sql in
                    try await server.resources.create(
                        Resource(id: Self.resource, name: "Reports", scopes: [.init(name: "reports:read", description: "Read")]), in: sql)
                }
                let ulla = try await server.users.create(username: "ulla", email: "ulla@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
                let profile = try #require(UpstreamProfile(claims: ["sub": uma.id], provider: server.configuration.identityProviders[0]))
                try await server.federatedIdentities.link(profile, to: ulla.id)
                try await server.clients.create(
                    id: "reporter", secret: Self.secret, redirectURIs: ["https://reporter.example/cb"], scopes: ["openid"],
                    tokenExchange: TokenExchangePolicy(
                        audiences: [Self.resource], scopes: ["reports:read"], subjectIssuers: [upstreamIssuer.absoluteString]))
                try await server.clients.create(
                    id: "wary", secret: Self.secret, redirectURIs: ["https://wary.example/cb"], scopes: ["openid"],
                    tokenExchange: TokenExchangePolicy(audiences: [Self.resource]))

                let (status, body) = try await exchange(serverIssuer, try await idToken(for: uma), client: "reporter")
                #expect(status == 200, "\(body)")
                let token = try #require(body["access_token"] as? String)
                let claims = try #require(CompactJWS(token)?.payload)
                #expect(claims["sub"] as? String == ulla.id && claims["aud"] as? String == Self.resource && claims["scope"] as? String == "reports:read")
                #expect((claims["act"] as? [String: Any])?["sub"] as? String == "reporter" && claims["amr"] as? [String] == ["fed"])
                let events = try await server.audit.events(AuditLog.Filter(types: [.tokenExchanged]), limit: 10)
                #expect(events.first?.details["subject_issuer"] == upstreamIssuer.absoluteString && events.first?.userID == ulla.id)

                // Not in the policy: refused; an identity linked to nobody: refused.
                let (wary, waryBody) = try await exchange(serverIssuer, try await idToken(for: uma), client: "wary")
                #expect(wary == 400 && waryBody["error"] as? String == "invalid_grant")
                let (unlinked, unlinkedBody) = try await exchange(serverIssuer, try await idToken(for: stranger), client: "reporter")
                #expect(unlinked == 400 && unlinkedBody["error"] as? String == "invalid_grant")
                let trusting = try #require(try await server.clients.find(id: "reporter"))
                #expect(trusting.tokenExchange?.subjectIssuers == [upstreamIssuer.absoluteString])
            }
        }
    }
}
