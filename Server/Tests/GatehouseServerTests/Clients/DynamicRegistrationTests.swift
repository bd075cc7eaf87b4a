import Foundation
import GatehouseProtocol
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Clients that register themselves")
struct DynamicRegistrationTests {
    private func code(_ metadata: ClientMetadata, open: Bool = false, resourceScopes: Set<String> = []) -> String? {
        do {
            _ = try ClientMetadataRules.validate(metadata, open: open, resourceScopes: resourceScopes)
            return nil
        } catch let error as OAuthError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "defaults fill what the client left out: a confidential client with the authorization code grant and the usual scopes, offline_access only with refresh_token"
    )
    func defaults() throws {
        let checked = try ClientMetadataRules.validate(ClientMetadata(redirectURIs: ["https://app.example/cb"]), open: false, resourceScopes: [])
        #expect(checked.tokenEndpointAuthMethod == "client_secret_basic" && checked.grantTypes == ["authorization_code"])
        // Refresh tokens come with offline_access, which the authorization code grant alone does not get.
        #expect(checked.responseTypes == ["code"] && checked.scope == "openid profile email")
        #expect(ClientMetadataRules.clientScopes(of: checked) == ["openid", "profile", "email"])
        var refreshing = ClientMetadata(redirectURIs: ["https://app.example/cb"])
        refreshing.grantTypes = ["authorization_code", "refresh_token"]
        let withRefresh = try ClientMetadataRules.validate(refreshing, open: false, resourceScopes: [])
        #expect(ClientMetadataRules.clientScopes(of: withRefresh) == ClientRegistrationRules.defaultScopes)
    }

    @Test("a resource's scopes may be registered, but only the server's own go into the client's record")
    func resourceScopes() throws {
        let metadata = ClientMetadata(redirectURIs: ["https://app.example/cb"], scope: "openid notes:read")
        #expect(code(metadata) == "invalid_client_metadata")
        let checked = try ClientMetadataRules.validate(metadata, open: false, resourceScopes: ["notes:read"])
        #expect(checked.scope == "openid notes:read" && ClientMetadataRules.clientScopes(of: checked) == ["openid"])
    }

    @Test("each wrong member gets RFC 7591's code for it")
    func refusals() {
        let https = ["https://app.example/cb"]
        #expect(code(ClientMetadata()) == "invalid_redirect_uri")
        #expect(code(ClientMetadata(redirectURIs: ["http://app.example/cb"])) == "invalid_redirect_uri")
        #expect(code(ClientMetadata(redirectURIs: Array(repeating: "https://app.example/cb", count: 11))) == "invalid_redirect_uri")
        #expect(code(ClientMetadata(redirectURIs: https, jwksURI: "http://app.example/jwks")) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, tokenEndpointAuthMethod: "private_key_jwt")) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, grantTypes: ["refresh_token"])) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, contacts: ["not an address"])) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, scope: "openid account")) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, policyURI: "data:text/html,x")) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, softwareID: String(repeating: "s", count: 201))) == "invalid_client_metadata")
    }

    @Test("private_key_jwt needs the client's keys, one way: an https jwks_uri (http on loopback only for development) or public keys")
    func keys() throws {
        let https = ["https://app.example/cb"]
        let key = JSONWebKey(
            keyType: "EC", keyID: "k1", algorithm: "ES256", curve: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")
        #expect(code(ClientMetadata(redirectURIs: https, tokenEndpointAuthMethod: "private_key_jwt")) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, tokenEndpointAuthMethod: "private_key_jwt", jwksURI: "https://app.example/jwks")) == nil)
        #expect(code(ClientMetadata(redirectURIs: https, tokenEndpointAuthMethod: "private_key_jwt", jwks: JSONWebKeySet(keys: [key]))) == nil)
        #expect(
            code(
                ClientMetadata(
                    redirectURIs: https, tokenEndpointAuthMethod: "private_key_jwt", jwksURI: "https://app.example/jwks", jwks: JSONWebKeySet(keys: [key])))
                == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, tokenEndpointAuthMethod: "none", jwks: JSONWebKeySet(keys: [key]))) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: https, tokenEndpointAuthMethod: "private_key_jwt", jwksURI: "http://127.0.0.1:8/jwks")) != nil)
        #expect(throws: Never.self) { try ClientMetadataRules.validateKeys(jwksURI: "http://127.0.0.1:8/jwks", jwks: nil, loopbackKeys: true) }
        #expect(throws: OAuthError.self) { try ClientMetadataRules.validateKeys(jwksURI: "http://10.0.0.1/jwks", jwks: nil, loopbackKeys: true) }
    }

    @Test("without an initial access token: a public client with https or loopback redirect URIs only")
    func openRegistration() {
        #expect(code(ClientMetadata(redirectURIs: ["https://app.example/cb"]), open: true) == "invalid_client_metadata")
        #expect(code(ClientMetadata(redirectURIs: ["com.example.app:/cb"], tokenEndpointAuthMethod: "none"), open: true) == "invalid_redirect_uri")
        #expect(code(ClientMetadata(redirectURIs: ["com.example.app:/cb"], tokenEndpointAuthMethod: "none")) == nil)
        #expect(code(ClientMetadata(redirectURIs: ["http://127.0.0.1/cb", "https://app.example/cb"], tokenEndpointAuthMethod: "none"), open: true) == nil)
    }

    @Test(
        "an openly registered client is swept when unused in time, and kept once it got a token; old copies of documents go",
        arguments: TestEngine.available)
    func unusedClientsExpire(engine: TestEngine) async throws {
        let now: Int64 = 1_900_000_000
        try await TestServer.withServer(engine: engine, clock: UnixClock { now }) { server in
            let registrations = ClientRegistrationStore(database: server.database, clock: server.clock)
            var clients: [Client] = []
            for (id, expiry) in [("dyn-stale", now - 1), ("dyn-used", now - 1), ("dyn-fresh", now + 60)] {
                var client = Client(
                    id: id, redirectURIs: ["https://app.example/cb"], postLogoutRedirectURIs: [], scopes: ["openid"], idTokenAlgorithm: "RS256",
                    createdAt: now - 100, isThirdParty: true)
                client.registeredDynamically = true
                client.unusedExpiresAt = expiry
                try await server.database.transaction { [client] sql in
                    try await registrations.register(
                        client, token: "token-\(id)", metadata: ClientMetadata(redirectURIs: client.redirectURIs), open: true, in: sql)
                }
                clients.append(client)
            }
            // Cached metadata documents: one not fetched for a month goes, one of yesterday stays.
            for (id, expiry) in [("https://agent.example/old", now - 31 * 86_400), ("https://agent.example/recent", now - 86_400)] {
                var document = Client(
                    id: id, redirectURIs: ["https://agent.example/cb"], postLogoutRedirectURIs: [], scopes: [], idTokenAlgorithm: "RS256", createdAt: now,
                    isThirdParty: true)
                document.metadataDocumentExpiresAt = expiry
                try await server.clients.upsert(document)
            }
            try await server.clients.markUsed(clients[1])
            #expect(try await server.clients.find(id: "dyn-used")?.unusedExpiresAt == nil)
            #expect(try await registrations.find("dyn-fresh", token: "token-dyn-fresh")?.open == true)
            #expect(try await registrations.find("dyn-fresh", token: "token-dyn-stale") == nil, "another client's token")

            _ = try await ExpiredRowSweep(database: server.database, clock: server.clock, configuration: server.configuration).run()
            #expect(try await server.clients.find(id: "dyn-stale") == nil)
            #expect(try await registrations.find("dyn-stale", token: "token-dyn-stale") == nil, "its registration went with it")
            #expect(try await server.clients.find(id: "dyn-used") != nil)
            #expect(try await server.clients.find(id: "dyn-fresh") != nil)
            #expect(try await server.clients.find(id: "https://agent.example/old") == nil)
            #expect(try await server.clients.find(id: "https://agent.example/recent") != nil)
        }
    }
}
