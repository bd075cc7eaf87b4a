import Foundation
import Testing

@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Browser sessions end when unused")
struct BrowserSessionIdleTests {
    @Test("use keeps a session alive up to its absolute lifetime; 30 idle minutes end it", arguments: TestEngine.available)
    func idleAndAbsolute(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            #expect(server.configuration.tokens.sessionIdle == 1800)
            let lifetime = server.configuration.tokens.session
            let hash = "$scrypt$ln=10,r=8,p=1$AA$AA"
            let ann = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: hash)
            let bob = try await server.users.create(username: "bob", email: "bob@example.com", name: nil, passwordHash: hash)
            let busy = try await server.sessions.start(userID: ann.id, methods: ["pwd"], lifetime: lifetime, replacing: nil)
            let idle = try await server.sessions.start(userID: bob.id, methods: ["pwd"], lifetime: lifetime, replacing: nil)
            // Used every 20 minutes, the busy one outlives several idle timeouts; the other lapses after 30.
            for _ in 0..<3 {
                advance(20 * 60)
                #expect(try await server.sessions.find(id: busy.id) != nil)
            }
            #expect(try await server.sessions.find(id: idle.id) == nil)
            // However busy, the absolute lifetime still ends it.
            while server.clock.now() < busy.session.expiresAt - 20 * 60 {
                advance(20 * 60)
                #expect(try await server.sessions.find(id: busy.id) != nil)
            }
            advance(20 * 60)
            #expect(try await server.sessions.find(id: busy.id) == nil)
        }
    }

    @Test("the idle timeout is configurable")
    func configured() throws {
        let folder = try TestServer.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("config.json")
        let load = { (json: String) throws -> ServerConfiguration in
            try Data(json.utf8).write(to: file)
            return try ConfigurationLoader(environment: [:]).load(configFile: file.path, overrides: .init())
        }
        #expect(try load(#"{"token_lifetimes": {"session_idle": 600}}"#).tokens.sessionIdle == 600)
        #expect(throws: ConfigurationError.self) { try load(#"{"token_lifetimes": {"session_idle": 0}}"#) }
    }
}
