import Foundation
import JWTKit
import Testing

@testable import GatehouseDomain
@testable import GatehouseEngines
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Signing keys on a schedule")
struct KeyScheduleTests {
    static func claims(_ server: IdentityServer) -> IDTokenClaims {
        let now = server.clock.now()
        return IDTokenClaims(iss: server.issuer, sub: "u", aud: "c", exp: now + 600, iat: now, authTime: now, nonce: nil, azp: "c")
    }

    static func kid(_ server: IdentityServer, _ algorithm: String) async throws -> String? {
        try JWTHeaderPeek.kid(of: try await server.keys.sign(Self.claims(server), algorithm: algorithm))
    }

    @Test(
        "the next key is published ahead, takes over signing at its time, and the retired key leaves the JWKS when its tokens have expired",
        arguments: TestEngine.available)
    func schedule(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(
            engine: engine, clock: clock,
            configure: {
                $0.keys.rotateEvery = 1000; $0.keys.publishAhead = 100
            }
        ) {
            server in
            let service = server.keyRotationService()
            let start = clock.now()
            #expect(try await service.turn().isEmpty)
            let first = try #require(try await Self.kid(server, "RS256"))

            advance(899)
            #expect(try await service.turn().isEmpty)
            advance(1)
            let changes = try await service.turn()
            #expect(changes.scheduled.map(\.next.algorithm).sorted() == ["ES256", "RS256"])
            #expect(changes.scheduled.allSatisfy { $0.next.activatesAt == start + 1000 })
            let next = try #require(changes.scheduled.first { $0.next.algorithm == "RS256" })
            #expect(next.retires == first)
            // Published now, not signing yet; nothing more to do on another turn.
            #expect(try await server.keys.publicKeySet().keys.map(\.keyID).contains(next.next.kid))
            #expect(try await Self.kid(server, "RS256") == first)
            #expect(try await service.turn().isEmpty)
            let listed = try await server.keyStore.all().map { AdminKey($0, now: clock.now()) }
            #expect(listed.filter { $0.status == .next }.count == 2 && listed.filter { $0.status == .active }.count == 2)

            advance(99)
            #expect(try await Self.kid(server, "RS256") == first)
            advance(1)
            #expect(try await Self.kid(server, "RS256") == next.next.kid)

            // Tokens the old key signed verify until they expire; then it goes.
            let lifetime = server.configuration.tokens.retiredKeyPublication
            advance(lifetime - 1)
            let penultimate = try await service.turn()
            #expect(penultimate.removed.isEmpty)
            // By now the successors have signed long enough to be due themselves.
            #expect(penultimate.scheduled.map(\.retires).sorted() == changes.scheduled.map(\.next.kid).sorted())
            #expect(try await server.keys.publicKeySet().keys.map(\.keyID).contains(first))
            advance(1)
            let last = try await service.turn()
            #expect(last.removed.contains(first) && last.removed.count == 2 && last.scheduled.isEmpty)
            #expect(try await !server.keys.publicKeySet().keys.map(\.keyID).contains(first))

            let events = try await server.audit.events(AuditLog.Filter(types: [.keyScheduled, .keyRemoved]), limit: 10)
            #expect(events.filter { $0.type == .keyScheduled }.count == 4)
            #expect(events.filter { $0.type == .keyRemoved }.count == 2)
            #expect(events.allSatisfy { $0.actor == "system" })
        }
    }

    @Test("nodes that turn the schedule at the same moment schedule each key once", arguments: TestEngine.available)
    func oneNodeSchedules(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(
            engine: engine, clock: clock,
            configure: {
                $0.keys.rotateEvery = 1000; $0.keys.publishAhead = 100
            }
        ) {
            server in
            advance(950)
            let services = (0..<4).map { _ in server.keyRotationService() }
            let scheduled = try await withThrowingTaskGroup(of: Int.self) { group in
                for service in services { group.addTask { try await service.turn().scheduled.count } }
                return try await group.reduce(0, +)
            }
            #expect(scheduled == 2)
            let keys = try await server.keyStore.all()
            #expect(keys.count == 4 && keys.filter { $0.status(at: clock.now()) == .next }.count == 2)
            // The successor signs from the end of the current key's period, publish_ahead from now at the earliest.
            #expect(keys.filter { $0.status(at: clock.now()) == .next }.allSatisfy { $0.activatesAt == clock.now() + 100 })
        }
    }

    @Test("a manual rotation replaces the scheduled successor and the current key at once")
    func manualRotationAfterSchedule() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(
            clock: clock,
            configure: {
                $0.keys.rotateEvery = 1000; $0.keys.publishAhead = 100
            }
        ) { server in
            advance(950)
            let scheduled = try await server.keyRotationService().turn().scheduled.map(\.next.kid)
            let created = try await server.keyStore.rotate(secret: server.secret, publishFor: 900).map(\.kid)
            try await server.keys.reloadNow()
            let keys = try await server.keyStore.all()
            #expect(keys.filter { scheduled.contains($0.kid) }.isEmpty)
            #expect(Set(keys.filter { $0.isActive(at: clock.now()) }.map(\.kid)) == Set(created))
            #expect(try await Self.kid(server, "ES256").map(created.contains) == true)
        }
    }

    @Test("publish_ahead and rotate_every are checked at start")
    func validation() throws {
        var policy = SigningKeyPolicy()
        policy.rotateEvery = 3600
        policy.publishAhead = 3600
        #expect(throws: ConfigurationError.self) { try policy.validate() }
        policy.publishAhead = 2
        #expect(throws: ConfigurationError.self) { try policy.validate() }
        policy.publishAhead = 600
        try policy.validate()
        #expect(policy.reloadInterval == 30)
        policy.publishAhead = 8
        policy.rotateEvery = 20
        #expect(policy.reloadInterval == 2)
    }
}
