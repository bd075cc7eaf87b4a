import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Where a user is signed in, on both engines: live browser sessions and token grants are listed (a rotated family
/// once, with its newest scopes), and each can be ended alone without touching the others or another user's.
@Suite("Active sessions and grants")
struct ActiveSessionsTests {
    @Test("list, end one browser session, revoke one grant", arguments: TestEngine.available)
    func listAndEnd(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let ann = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: User.noPassword)
            let bob = try await server.users.create(username: "bob", email: "bob@example.com", name: nil, passwordHash: User.noPassword)
            let lifetimes = server.configuration.tokens
            func grant(_ user: User, _ scopes: [String]) -> Grant {
                Grant(
                    id: SecureRandom.token(byteCount: 16), clientID: "web", userID: user.id, scopes: scopes, authTime: server.clock.now(),
                    methods: ["pwd"])
            }
            // Ann: two browser sessions, a refreshable grant rotated once with narrower scopes, and one without refresh.
            let first = try await server.sessions.start(userID: ann.id, methods: ["pwd", "otp"], lifetime: 3600, replacing: nil)
            _ = try await server.sessions.start(userID: ann.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            let offline = grant(ann, ["openid", "email", "offline_access"])
            let issued = try await server.tokens.issue(for: offline, withRefreshToken: true, lifetimes: lifetimes)
            let rotated = try await server.tokens.refresh(
                try #require(issued.refreshToken), clientID: "web", narrowedScopes: ["openid", "offline_access"], lifetimes: lifetimes)
            guard case .rotated = rotated else { throw Unexpected() }
            let online = grant(ann, ["openid"])
            _ = try await server.tokens.issue(for: online, withRefreshToken: false, lifetimes: lifetimes)
            // Bob: one of each, which nothing below may touch.
            _ = try await server.sessions.start(userID: bob.id, methods: ["pwd"], lifetime: 3600, replacing: nil)
            _ = try await server.tokens.issue(for: grant(bob, ["openid"]), withRefreshToken: true, lifetimes: lifetimes)

            let sessions = try await server.activeSessions.browserSessions(of: ann.id)
            #expect(sessions.count == 2 && sessions.allSatisfy { $0.id.count == ActiveSessions.handleLength })
            let grants = try await server.activeSessions.grants(of: ann.id)
            #expect(Set(grants.map(\.id)) == [offline.id, online.id])
            let refreshable = try #require(grants.first { $0.id == offline.id })
            #expect(refreshable.refreshable && refreshable.scopes == ["openid", "offline_access"] && refreshable.authenticatedAt != nil)
            #expect(grants.first { $0.id == online.id }?.refreshable == false)

            // One session ends: the other stays, and its cookie still finds it; the ended one's does not.
            let handle = String(TokenDigest.hex(first.id).prefix(ActiveSessions.handleLength))
            #expect(try await server.activeSessions.endBrowserSession(handle, of: bob.id) == false, "another user's session")
            #expect(try await server.activeSessions.endBrowserSession(handle, of: ann.id))
            #expect(try await server.sessions.find(id: first.id) == nil)
            #expect(try await server.activeSessions.browserSessions(of: ann.id).count == 1)
            #expect(try await server.activeSessions.endBrowserSession("not-a-handle", of: ann.id) == false)

            // One grant is revoked: its tokens stop working, the other grant and Bob's stay.
            #expect(try await server.activeSessions.revokeGrant(offline.id, of: bob.id) == nil, "another user's grant")
            #expect(try await server.activeSessions.revokeGrant(offline.id, of: ann.id) == "web")
            #expect(try await server.activeSessions.revokeGrant(offline.id, of: ann.id) == nil, "revoked already")
            #expect(try await server.activeSessions.grants(of: ann.id).map(\.id) == [online.id])
            #expect(try await server.activeSessions.grants(of: bob.id).count == 1)
            #expect(try await server.activeSessions.browserSessions(of: bob.id).count == 1)
        }
    }

    private struct Unexpected: Error {}
}
