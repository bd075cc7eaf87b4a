import Foundation
import SQLKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Ordered access and refresh tokens")
struct OrderedTokenTests {
    @Test("tokens carry their issue time in hex before 256 random bits, and their storage keys sort in issue order")
    func keysSortByIssueTime() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        let tokens = (0..<1000).map { _ in SecureRandom.orderedToken() }
        #expect(tokens.allSatisfy { $0.count == SecureRandom.orderedTokenLength && $0.count == 59 })
        let times = tokens.map { UInt64($0.prefix(16), radix: 16) }
        #expect(times.allSatisfy { $0 != nil && $0! >= before })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0! < $1! }, "strictly increasing, even within one microsecond")
        let keys = tokens.map(TokenDigest.storageKey)
        #expect(keys == keys.sorted())
        #expect(Set(tokens.map { $0.dropFirst(16) }).count == 1000)
        let token = try #require(tokens.first)
        #expect(TokenDigest.storageKey(token) == String(token.prefix(16)) + TokenDigest.hex(token))
    }

    @Test("a token without the time prefix (issued before, or made up) is stored and found under its digest alone")
    func otherTokensUseTheDigest() {
        let earlier = SecureRandom.token()
        #expect(TokenDigest.storageKey(earlier) == TokenDigest.hex(earlier))
        let madeUp = "ZZZZZZZZZZZZZZZZ" + SecureRandom.token()
        #expect(madeUp.count == 59 && TokenDigest.storageKey(madeUp) == TokenDigest.hex(madeUp))
        let upperHex = "00063F1A2B3C4D5E" + SecureRandom.token()
        #expect(TokenDigest.storageKey(upperHex) == TokenDigest.hex(upperHex))
    }

    @Test("a refresh token stored under its plain digest, as before ordered tokens, still rotates", arguments: TestEngine.available)
    func earlierTokensStillWork(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: "$scrypt$ln=10,r=8,p=1$AA$AA")
            let grant = Grant(
                id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: ["openid", "offline_access"],
                authTime: server.clock.now(), methods: ["pwd"])
            let issued = try await server.tokens.issue(for: grant, withRefreshToken: true, lifetimes: server.configuration.tokens)
            let ordered = try #require(issued.refreshToken)
            // Turn the stored row into one from before: an unprefixed token under its plain digest.
            let earlier = SecureRandom.token()
            try await server.database.transaction { sql in
                try await sql.raw(
                    """
                    UPDATE refresh_tokens SET token_hash = \(bind: TokenDigest.hex(earlier)) WHERE token_hash = \(bind: TokenDigest.storageKey(ordered))
                    """
                ).run()
            }
            guard
                case .rotated(_, let tokens, let rotatedFor) = try await server.tokens.refresh(
                    earlier, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens)
            else {
                Issue.record("the earlier refresh token did not rotate")
                return
            }
            #expect(rotatedFor == user, "the rotation reads the grant's user in its transaction")
            #expect(tokens.refreshToken?.count == SecureRandom.orderedTokenLength)
            #expect(try await server.tokens.activeAccessToken(tokens.accessToken)?.userID == user.id)
            let unknown = try await server.tokens.refresh(ordered, clientID: "web", narrowedScopes: nil, lifetimes: server.configuration.tokens)
            #expect({ if case .invalid = unknown { true } else { false } }(), "its row now answers to the earlier token only")
        }
    }
}
