import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Codes sent by email or SMS")
struct OneTimeCodeStoreTests {
    @Test("a code is six digits, bound to its flow and purpose, and accepted once", arguments: TestEngine.available)
    func singleUse(engine: TestEngine) async throws {
        try await TestServer.withServer(engine: engine) { server in
            let codes = server.oneTimeCodes
            guard case .code(let code) = try await codes.issue(flowID: "flow-a", purpose: .verifyEmail, channel: .email, resend: false) else {
                Issue.record("no code issued")
                return
            }
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            // The same digits answer neither another flow nor another purpose of the same flow.
            #expect(try await codes.verify(flowID: "flow-b", purpose: .verifyEmail, code: code) == .exhausted)
            _ = try await codes.issue(flowID: "flow-a", purpose: .recovery, channel: .email, resend: false)
            #expect(try await codes.verify(flowID: "flow-a", purpose: .recovery, code: code) != .accepted(.email))
            #expect(try await codes.verify(flowID: "flow-a", purpose: .verifyEmail, code: code) == .accepted(.email))
            #expect(try await codes.verify(flowID: "flow-a", purpose: .verifyEmail, code: code) == .exhausted)
        }
    }

    @Test("a code past its lifetime is refused even when right")
    func expiry() async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(clock: clock, configure: { $0.oneTimeCodes.lifetime = 300 }) { server in
            guard case .code(let code) = try await server.oneTimeCodes.issue(flowID: "f", purpose: .secondFactor, channel: .sms, resend: false) else {
                Issue.record("no code issued")
                return
            }
            advance(300)
            #expect(try await server.oneTimeCodes.verify(flowID: "f", purpose: .secondFactor, code: code) == .expired)
        }
    }

    @Test("concurrent wrong guesses never get more tries than the limit, and a resend keeps the count", arguments: TestEngine.available)
    func guessLimit(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock, configure: { $0.oneTimeCodes.maxAttempts = 5 }) { server in
            let codes = server.oneTimeCodes
            guard case .code(let code) = try await codes.issue(flowID: "f", purpose: .recovery, channel: .email, resend: false) else {
                Issue.record("no code issued")
                return
            }
            let wrong = code == "000000" ? "111111" : "000000"
            _ = try await codes.verify(flowID: "f", purpose: .recovery, code: wrong)
            // Asking again at once is held back; later a new code comes, with the spent guess still counted.
            #expect(try await codes.issue(flowID: "f", purpose: .recovery, channel: .email, resend: true) == .wait(30))
            advance(30)
            guard case .code(let fresh) = try await codes.issue(flowID: "f", purpose: .recovery, channel: .email, resend: true) else {
                Issue.record("no resend")
                return
            }
            advance(30)
            #expect(try await codes.issue(flowID: "f", purpose: .recovery, channel: .email, resend: true) == .wait(30), "the second resend waits 60 s")
            let other = fresh == "000000" ? "111111" : "000000"
            let results = try await withThrowingTaskGroup(of: OneTimeCodeStore.Check.self) { group in
                for _ in 0..<10 { group.addTask { try await codes.verify(flowID: "f", purpose: .recovery, code: other) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let evaluated = results.filter { if case .rejected = $0 { true } else { false } }.count
            // 5 guesses in all, one spent before the resend: 4 compared (the last of them leaves none), then exhaustion
            // without comparing.
            #expect(evaluated == 4)
            #expect(results.filter { $0 == .rejected(remaining: 0) }.count == 1)
            #expect(results.filter { $0 == .exhausted }.count == 6)
            #expect(try await codes.verify(flowID: "f", purpose: .recovery, code: fresh) == .exhausted, "no guesses left, even for the right code")
        }
    }
}
