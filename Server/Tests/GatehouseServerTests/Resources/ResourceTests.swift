import Foundation
import GatehouseProtocol
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Resources and the tokens issued for them")
struct ResourceTests {
    @Test("an identifier is an https URL (http on loopback) or a URN, without a fragment, spaces or excess length")
    func identifiers() throws {
        for valid in ["https://api.example.com", "https://api.example.com/notes/v2", "http://127.0.0.1:8443/mcp", "urn:example:ledger"] {
            #expect(throws: Never.self) { try ResourceRules.validateIdentifier(valid) }
        }
        for invalid in [
            "", "http://api.example.com", "https://api.example.com/#x", "api.example.com", "https:///nohost", "urn:nothing", "https://a.example/ b",
            "javascript:alert(1)", "https://example.com/" + String(repeating: "a", count: 600),
        ] {
            #expect(throws: ConfigurationError.self, "\(invalid.prefix(40))") { try ResourceRules.validateIdentifier(invalid) }
        }
    }

    @Test("scopes are RFC 6749 scope tokens, never the server's own, each described once; lifetimes stay within the server's")
    func settings() throws {
        let good = Resource(id: "urn:x:notes", name: "Notes", scopes: [.init(name: "notes:read", description: "Read your notes")], accessTokenLifetime: 600)
        #expect(throws: Never.self) { try ResourceRules.validate(good, longestLifetime: 900) }
        var tooLong = good
        tooLong.accessTokenLifetime = 901
        #expect(throws: ConfigurationError.self) { try ResourceRules.validate(tooLong, longestLifetime: 900) }
        for scope in [
            Resource.Scope(name: "openid", description: "x"), .init(name: "a b", description: "x"), .init(name: "quote\"", description: "x"),
            .init(name: "notes:read", description: " "), .init(name: "", description: "x"),
        ] {
            var resource = good
            resource.scopes = [scope]
            #expect(throws: ConfigurationError.self, "\(scope.name)") { try ResourceRules.validate(resource, longestLifetime: 900) }
        }
        var twice = good
        twice.scopes.append(good.scopes[0])
        #expect(throws: ConfigurationError.self) { try ResourceRules.validate(twice, longestLifetime: 900) }
        var unnamed = good
        unnamed.name = "  "
        #expect(throws: ConfigurationError.self) { try ResourceRules.validate(unnamed, longestLifetime: 900) }
    }

    @Test("a resource with no listed clients is open on a person's behalf but never to a client acting for itself")
    func allowedClients() {
        let open = Resource(id: "urn:x:a", name: "A")
        #expect(open.allows("web") && !open.allows("web", actingForItself: true))
        let listed = Resource(id: "urn:x:b", name: "B", allowedClients: ["worker"])
        #expect(listed.allows("worker") && listed.allows("worker", actingForItself: true) && !listed.allows("web"))
    }

    @Test("a token for a resource carries only its scopes, its lifetime and its audience; for the server, only the server's scopes")
    func audience() {
        let notes = TokenAudience(
            resource: Resource(id: "urn:x:notes", name: "Notes", scopes: [.init(name: "notes:read", description: "r")], accessTokenLifetime: 120))
        let granted = ["openid", "notes:read", "profile", "ledger:read"]
        #expect(notes.scopes(of: granted) == ["notes:read"] && notes.lifetime(standard: 900) == 120 && notes.identifier == "urn:x:notes" && notes.isJWT)
        #expect(TokenAudience.server.scopes(of: granted) == ["openid", "profile"] && TokenAudience.server.lifetime(standard: 900) == 900)
        #expect(TokenAudience.server.identifier == nil && !TokenAudience.server.isJWT)
    }

    @Test("a chain of actors nests most recent first (RFC 8693 §4.1) and reads back the same")
    func actorChain() throws {
        let chain = try #require(TokenActor.chain(["gateway", "notes-api"]))
        #expect(chain.subject == "gateway" && chain.actor?.subject == "notes-api" && chain.actor?.actor == nil)
        let encoded = String(decoding: try JSONEncoder().encode(chain), as: UTF8.self)
        #expect(encoded == #"{"act":{"sub":"notes-api"},"sub":"gateway"}"# || encoded == #"{"sub":"gateway","act":{"sub":"notes-api"}}"#)
        #expect(try JSONDecoder().decode(TokenActor.self, from: Data(encoded.utf8)).subjects == ["gateway", "notes-api"])
        #expect(TokenActor.chain([]) == nil)
    }

    @Test("the jti of a JWT-shaped token is read without trusting it; an opaque token has none")
    func unverifiedID() {
        let payload = Base64URL.encode(Data(#"{"jti":"abc","sub":"x"}"#.utf8))
        #expect(AccessTokenClaims.unverifiedID(of: "e30.\(payload).c2ln") == "abc")
        #expect(AccessTokenClaims.unverifiedID(of: "0006614bf5a022d16tI8vCZQkxJqMWiB20J60BrvZF6hcOQiPDLAYpV123c") == nil)
        #expect(AccessTokenClaims.unverifiedID(of: "a.b") == nil && AccessTokenClaims.unverifiedID(of: "e30.e30.e30") == nil)
        #expect(TokenStore.accessTokenKey("e30.\(payload).c2ln") == TokenStore.jwtKey(id: "abc"))
        #expect(TokenStore.jwtKey(id: "abc") != TokenDigest.storageKey("abc"), "a jti alone is no token")
    }

    @Test(
        "a JWT access token's row key starts with its jti's issue time; a row kept under the key before that is still found and revoked",
        arguments: TestEngine.available)
    func jwtRowKeys(engine: TestEngine) async throws {
        let id = SecureRandom.orderedToken()
        let key = TokenStore.jwtKey(id: id)
        #expect(key.hasPrefix(id.prefix(SecureRandom.orderedPrefixLength)) && key.count == SecureRandom.orderedPrefixLength + 64)
        #expect(key != TokenDigest.storageKey(id) && key != TokenStore.legacyJWTKey(id: id), "a jti alone is no token")
        // Keys made in order sort in order: each new row lands at the end of the index.
        let later = SecureRandom.orderedToken()
        #expect(TokenStore.jwtKey(id: id) < TokenStore.jwtKey(id: later))

        try await TestServer.withServer(engine: engine) { server in
            let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
            let now = server.clock.now()
            try await server.database.transaction { sql in
                try await sql.raw(
                    """
                    INSERT INTO access_tokens (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at)
                    VALUES (\(bind: TokenStore.legacyJWTKey(id: id)), 'g1', 'web', \(bind: user.id), 'openid', \(bind: now), \(bind: now + 600))
                    """
                ).run()
            }
            let token = "e30.\(Base64URL.encode(Data(#"{"jti":"\#(id)"}"#.utf8))).c2ln"
            #expect(TokenStore.accessTokenKeys(token) == [key, TokenStore.legacyJWTKey(id: id)])
            let found = try #require(try await server.tokens.activeAccessToken(token), "issued before its key kept the prefix")
            #expect(found.userID == user.id)
            try await server.tokens.revoke(token, clientID: "web")
            #expect(try await server.tokens.activeAccessToken(token) == nil)
        }
    }

    @Test("refreshing for a resource the grant did not name is invalid_target and leaves the refresh token usable", arguments: TestEngine.available)
    func refreshForUnnamedResource(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let resource = try await server.database.transaction { sql in
                try await server.resources.create(
                    Resource(id: "urn:x:notes", name: "Notes", scopes: [.init(name: "notes:read", description: "Read")], tokenFormat: .opaque), in: sql)
            }
            let other = try await server.database.transaction { sql in
                try await server.resources.create(Resource(id: "urn:x:other", name: "Other"), in: sql)
            }
            let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
            let grant = Grant(
                id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: ["openid", "notes:read", "offline_access"],
                authTime: server.clock.now(), methods: ["pwd"], resources: [resource.id])
            let first = try await server.tokens.issue(
                for: grant, withRefreshToken: true, lifetimes: server.configuration.tokens, audience: TokenAudience(resource: resource))
            let access = try #require(try await server.tokens.activeAccessToken(first.accessToken))
            #expect(access.audience == resource.id && access.scopes == ["notes:read"])

            let refreshToken = try #require(first.refreshToken)
            await #expect(throws: OAuthError.self) {
                try await server.database.transaction { sql in
                    try await server.tokens.refresh(
                        refreshToken, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens,
                        minted: .init(withRefreshToken: true), audience: TokenAudience(resource: other), in: sql)
                }
            }
            let outcome = try await server.database.transaction { sql in
                try await server.tokens.refresh(
                    refreshToken, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens, minted: .init(withRefreshToken: true),
                    in: sql)
            }
            guard case .rotated(let rotated, let tokens, _) = outcome else { throw Unexpected() }
            #expect(rotated.resources == [resource.id], "the family keeps the resources its authorization named")
            let own = try #require(try await server.tokens.activeAccessToken(tokens.accessToken))
            #expect(own.audience == nil && own.scopes == ["openid", "offline_access"])
        }
    }

    private struct Unexpected: Error {}
}
