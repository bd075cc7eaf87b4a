import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The device authorization grant's state (RFC 8628), on both engines: user codes from the 20-letter alphabet, typed in
/// any case; polls that come too soon slow the device down; an answer is given once and tokens are collected once,
/// however many polls race for them.
@Suite("Device authorizations")
struct DeviceAuthorizationStoreTests {
    @Test("user codes: eight of twenty consonants, hyphenated, each letter about as likely as the others")
    func userCodes() {
        var counts: [Character: Int] = [:]
        for _ in 0..<2_000 {
            let code = DeviceAuthorizationStore.userCode()
            #expect(code.count == 9 && Array(code)[4] == "-")
            for letter in code where letter != "-" {
                #expect(DeviceAuthorizationStore.userCodeAlphabet.contains(letter))
                counts[letter, default: 0] += 1
            }
        }
        // 16,000 letters, 800 expected each: a biased draw (the modulo of a byte) would put some near 640 or 960.
        #expect(counts.count == 20 && counts.values.allSatisfy { (680...920).contains($0) }, "\(counts)")
        #expect(DeviceAuthorizationStore.canonical(" wdjb mjht ") == "WDJBMJHT")
        #expect(DeviceAuthorizationStore.canonical("wdjb-mjht") == DeviceAuthorizationStore.canonical("WDJBMJHT"))
    }

    @Test("pending, slow_down, approved once, collected once; denied and expired", arguments: TestEngine.available)
    func lifecycle(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let store = server.deviceAuthorizations
            let user = try await server.users.create(username: "ann", email: "ann@example.com", name: nil, passwordHash: User.noPassword)
            let started = try await store.start(clientID: "tv", scopes: ["openid", "offline_access"], lifetime: 600, interval: 5)
            let found = try #require(try await store.find(userCode: started.userCode.lowercased().replacingOccurrences(of: "-", with: " ")))
            #expect(found.clientID == "tv" && found.scopes == ["openid", "offline_access"])
            #expect(try await store.find(userCode: "BCDF-GHJ") == nil)

            #expect(try await store.poll(deviceCode: started.deviceCode, clientID: "tv") == .pending)
            advance(2)
            #expect(try await store.poll(deviceCode: started.deviceCode, clientID: "tv") == .slowDown(interval: 10))
            #expect(try await store.poll(deviceCode: started.deviceCode, clientID: "other") == .invalid)
            advance(10)
            #expect(try await store.poll(deviceCode: started.deviceCode, clientID: "tv") == .pending)

            #expect(try await store.answer(found.id, approved: true, userID: user.id, authTime: clock.now(), methods: ["pwd", "otp"]))
            #expect(try await !store.answer(found.id, approved: false, userID: user.id, authTime: clock.now(), methods: ["pwd"]))
            #expect(try await store.find(userCode: started.userCode) == nil)
            advance(10)
            // Polls racing for the tokens: one gets the grant, every other is told the code is spent.
            let outcomes = try await withThrowingTaskGroup(of: DeviceAuthorizationStore.Poll.self) { group in
                for _ in 0..<6 { group.addTask { try await store.poll(deviceCode: started.deviceCode, clientID: "tv") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let grants = outcomes.compactMap { outcome -> Grant? in if case .approved(let grant) = outcome { grant } else { nil } }
            #expect(grants.count == 1)
            #expect(grants.first?.userID == user.id && grants.first?.methods == ["pwd", "otp"] && grants.first?.scopes == ["openid", "offline_access"])
            #expect(outcomes.filter { $0 != .invalid && $0 != .slowDown(interval: 10) && $0 != .slowDown(interval: 15) }.count == 1, "\(outcomes)")

            let denied = try await store.start(clientID: "tv", scopes: ["openid"], lifetime: 600, interval: 5)
            let deniedID = try #require(try await store.find(userCode: denied.userCode)).id
            #expect(try await store.answer(deniedID, approved: false, userID: user.id, authTime: clock.now(), methods: ["pwd"]))
            #expect(try await store.poll(deviceCode: denied.deviceCode, clientID: "tv") == .denied)

            let forgotten = try await store.start(clientID: "tv", scopes: ["openid"], lifetime: 600, interval: 5)
            advance(600)
            #expect(try await store.find(userCode: forgotten.userCode) == nil)
            #expect(try await store.poll(deviceCode: forgotten.deviceCode, clientID: "tv") == .expired)
        }
    }
}
