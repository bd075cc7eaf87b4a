import Foundation
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// Passkeys in the database, on both engines: credential ids unique across users, random user handles, counters
/// that move by compare-and-set, and names and removal scoped to their owner.
@Suite("Passkey store")
struct PasskeyStoreTests {
    static func registration(_ vector: WebAuthnTestVector) throws -> RelyingParty.Registration {
        try RelyingPartyTests.register(vector)
    }

    @Test("a registration is stored and read back whole; its credential id cannot be registered again, by anyone", arguments: TestEngine.available)
    func addAndFind(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let lee = try await FlowJourneyTests.addUser(server, "lee")
            let registration = try Self.registration(.packedES256)
            let added = try await server.passkeys.add(userID: kim.id, registration: registration, name: "Security key", transports: ["usb", "nfc"])
            let found = try #require(try await server.passkeys.find(credentialID: registration.credentialID))
            #expect(found.id == added.id && found.userID == kim.id && found.name == "Security key" && found.transports == ["usb", "nfc"])
            #expect(found.aaguid == WebAuthnTestVector.packedES256.aaguid && found.attestation == "basic" && found.userVerified)
            #expect(found.publicKey.encoded == registration.publicKey.encoded && found.signCount == 0 && found.lastUsedAt == nil)
            for owner in [kim, lee] {
                await #expect(throws: DatabaseError.duplicate("A passkey with this credential id")) {
                    _ = try await server.passkeys.add(userID: owner.id, registration: registration, name: "again", transports: [])
                }
            }
            _ = try await server.passkeys.add(userID: kim.id, registration: try Self.registration(.packedEdDSA), name: "Laptop", transports: [])
            #expect(Set(try await server.passkeys.list(userID: kim.id).map(\.name)) == ["Security key", "Laptop"])
            #expect(try await server.passkeys.list(userID: lee.id).isEmpty)
        }
    }

    @Test(
        "registrations of one credential at the same moment: one is stored, every other is a duplicate, never a database error", arguments: TestEngine.available
    )
    func concurrentRegistrations(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let lee = try await FlowJourneyTests.addUser(server, "lee")
            let registration = try Self.registration(.packedES256)
            let outcomes = await withTaskGroup(of: String.self) { group in
                for attempt in 0..<12 {
                    group.addTask {
                        do {
                            _ = try await server.passkeys.add(
                                userID: attempt.isMultiple(of: 2) ? kim.id : lee.id, registration: registration, name: "key \(attempt)", transports: [])
                            return "stored"
                        } catch let error as DatabaseError where error.isDuplicate {
                            return "duplicate"
                        } catch {
                            return "failed: \(String(reflecting: error))"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "stored" }.count == 1, "\(outcomes)")
            #expect(outcomes.filter { $0 == "duplicate" }.count == 11, "\(outcomes)")
        }
    }

    @Test("user handles are 32 random bytes, stable per user, different between users, and lead back to their user", arguments: TestEngine.available)
    func userHandles(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let lee = try await FlowJourneyTests.addUser(server, "lee")
            let handle = try await server.passkeys.userHandle(for: kim.id)
            #expect(handle.count == 32 && handle != Array(kim.id.utf8))
            #expect(try await server.passkeys.userHandle(for: kim.id) == handle)
            #expect(try await server.passkeys.userHandle(for: lee.id) != handle)
            #expect(try await server.passkeys.userID(forHandle: handle) == kim.id)
            #expect(try await server.passkeys.userID(forHandle: [UInt8](repeating: 7, count: 32)) == nil)
        }
    }

    @Test("a use moves the counter from the value it was checked against: of two uses that passed, one counts", arguments: TestEngine.available)
    func counters(engine: TestEngine) async throws {
        let (clock, _) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let passkey = try await server.passkeys.add(userID: kim.id, registration: try Self.registration(.selfES256), name: "Phone", transports: [])
            let use = RelyingParty.Assertion(userVerified: true, signCount: 5, backedUp: false)
            async let first = server.passkeys.recordUse(of: passkey, assertion: use)
            async let second = server.passkeys.recordUse(of: passkey, assertion: use)
            let results = try await [first, second]
            #expect(results.filter { $0 }.count == 1, "\(results)")
            let used = try #require(try await server.passkeys.find(credentialID: passkey.credentialID))
            #expect(used.signCount == 5 && used.lastUsedAt == server.clock.now() && used.userVerified)
        }
    }

    @Test("renaming and removing touch only the owner's passkeys; deleting a user deletes theirs", arguments: TestEngine.available)
    func ownership(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let kim = try await FlowJourneyTests.addUser(server, "kim")
            let lee = try await FlowJourneyTests.addUser(server, "lee")
            let passkey = try await server.passkeys.add(userID: kim.id, registration: try Self.registration(.noneES256), name: "Phone", transports: [])
            #expect(try await server.passkeys.rename(passkey.id, of: lee.id, to: "Mine") == false)
            #expect(try await server.passkeys.rename(passkey.id, of: kim.id, to: "Old phone"))
            #expect(try await server.passkeys.list(userID: kim.id).map(\.name) == ["Old phone"])
            #expect(try await server.passkeys.remove(passkey.id, of: lee.id) == false)
            #expect(try await server.passkeys.remove(passkey.id, of: kim.id))
            #expect(try await server.passkeys.list(userID: kim.id).isEmpty)
            let other = try await server.passkeys.add(userID: lee.id, registration: try Self.registration(.packedRS256), name: "Key", transports: [])
            #expect(try await server.users.delete(username: "lee"))
            #expect(try await server.passkeys.find(credentialID: other.credentialID) == nil)
        }
    }
}
