import Foundation
import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// A submission is one database transaction: its guesses, code checks, the finish and the caller's authorization
/// code commit together or not at all.
@Suite("One transaction per submission")
struct FlowTransactionTests {
    struct Refused: Error {}

    /// A user with TOTP whose flow is at the TOTP node, under a policy that asks for it.
    static func atTOTP(_ server: IdentityServer) async throws -> (FlowDriver, OneTimePassword) {
        let user = try await FlowJourneyTests.addUser(server)
        let generator = AuthenticatorStore.newTOTP()
        try await server.authenticators.addTOTP(userID: user.id, generator, usedStep: 0)
        let (flow, _) = try await FlowDriver.start(server)
        #expect(try await flow.submit(["username": "kim", "password": .text(FlowJourneyTests.password)]).nodeID == FlowStep.totp.rawValue)
        return (flow, generator)
    }

    static func roundTrips(_ server: IdentityServer) throws -> ScopedDatabase.RoundTrips {
        try #require(server.database as? ScopedDatabase).roundTrips
    }

    static func ifEnrolled(_ configuration: inout ServerConfiguration) { configuration.signOn = SignOnPolicy(secondFactor: .ifEnrolled) }

    @Test("a TOTP code that signs in, with its authorization code, is one read of the flow and one transaction", arguments: TestEngine.available)
    func totpRoundTrips(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.ifEnrolled) { server in
            let (flow, generator) = try await Self.atTOTP(server)
            let before = try Self.roundTrips(server)
            // As the flow API does it: read the flow, then submit, issuing the code in the submission's transaction.
            let state = try #require(try await server.flows.find(flow.id, owner: FlowDriver.owner))
            let submitted = try await server.loginFlow.submit(
                flow.id, state: state, action: "submit", values: ["code": .text(generator.code(at: server.clock.now()))]
            ) { user, state in
                try await server.authorizationResponder.issueCode(for: state.request, userID: user.id, authTime: 0, methods: ["pwd"])
            }
            let after = try Self.roundTrips(server)
            #expect(submitted.outcome.signedIn != nil && submitted.signedIn != nil)
            #expect(after.reads - before.reads == 1, "reads: \(after.reads - before.reads)")
            #expect(after.transactions - before.transactions == 1, "transactions: \(after.transactions - before.transactions)")
        }
    }

    @Test("a password that signs in: its guess taken and settled around the hash, everything else one transaction", arguments: TestEngine.available)
    func passwordRoundTrips(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            try await FlowJourneyTests.addUser(server)
            let (flow, _) = try await FlowDriver.start(server)
            let before = try Self.roundTrips(server)
            #expect(try await flow.submit(["username": "kim", "password": .text(FlowJourneyTests.password)]).signedIn != nil)
            let after = try Self.roundTrips(server)
            // Reads: the flow and the account (before the hash). Transactions: the guess admitted before the hash
            // (so that concurrent guesses count), settled after it, and the submission.
            #expect(after.reads - before.reads == 2 && after.transactions - before.transactions == 3, "\(before) → \(after)")
        }
    }

    @Test("when the caller's part of a sign-in fails, the code check, the guess and the finish are undone with it", arguments: TestEngine.available)
    func signInCommitsTogether(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.ifEnrolled) { server in
            let (flow, generator) = try await Self.atTOTP(server)
            let code = generator.code(at: server.clock.now())
            let state = try #require(try await server.flows.find(flow.id, owner: FlowDriver.owner))
            await #expect(throws: Refused.self) {
                _ = try await server.loginFlow.submit(flow.id, state: state, action: "submit", values: ["code": .text(code)]) { _, _ in
                    throw Refused()
                }
            }
            // The flow is where it was, with no code check counted, and the same code is not taken for a replay.
            #expect(try await flow.step() == .totp)
            let guesses = try await server.database.read { sql in
                try await sql.raw("SELECT code_checks FROM flows").first()?.decode(column: "code_checks", as: Int.self)
            }
            #expect(guesses == 0)
            #expect(try await flow.submit(["code": .text(code)]).signedIn?.methods == ["pwd", "otp", "mfa"])
        }
    }

    @Test("a wrong code is counted even though the submission goes no further", arguments: TestEngine.available)
    func wrongCodeCounted(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine, configure: Self.ifEnrolled) { server in
            let (flow, generator) = try await Self.atTOTP(server)
            let before = try Self.roundTrips(server)
            #expect(try await flow.submit(["code": .text(generator.code(at: server.clock.now() + 600))]).messageCode == "invalid_code")
            let after = try Self.roundTrips(server)
            #expect(after.transactions - before.transactions == 1)
            let guesses = try await server.database.read { sql in
                try await sql.raw("SELECT code_checks FROM flows").first()?.decode(column: "code_checks", as: Int.self)
            }
            #expect(guesses == 1)
        }
    }
}
