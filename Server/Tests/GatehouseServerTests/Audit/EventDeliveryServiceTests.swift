import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The audit trail sent on, per channel, on both engines: in order, again until accepted, each channel from where it
/// got to; a hook from the events after it was first met, the audit webhook from the oldest.
@Suite("Event delivery")
struct EventDeliveryServiceTests {
    /// A receiver that accepts only as many events per delivery as `accepting` says (all when `nil`).
    final class Recorder: EventChannel, @unchecked Sendable {
        let name: String
        let types: [AuditEventType]?
        let startsAtNewest: Bool
        let batchSize: Int
        let state = NIOLockedValueBox<(offered: [[String]], accepted: [String], accepting: Int?)>(([], [], nil))

        init(name: String, types: [AuditEventType]? = nil, startsAtNewest: Bool, batchSize: Int = 2) {
            self.name = name
            self.types = types
            self.startsAtNewest = startsAtNewest
            self.batchSize = batchSize
        }

        func deliver(_ events: [AuditEvent], at now: Int64) async -> Int {
            state.withLockedValue { state in
                let taken = min(state.accepting ?? events.count, events.count)
                state.offered.append(events.map { $0.details["n"] ?? "?" })
                state.accepted += events.prefix(taken).map { $0.details["n"] ?? "?" }
                return taken
            }
        }

        var accepted: [String] { state.withLockedValue(\.accepted) }
        var offered: [[String]] { state.withLockedValue(\.offered) }
        func accept(_ count: Int?) { state.withLockedValue { $0.accepting = count } }
    }

    @Test("each channel gets its events in order, again after a refusal's delay, from where it got to", arguments: TestEngine.available)
    func delivery(engine: TestEngine) async throws {
        let (clock, advance) = UnixClock.manual()
        try await TestServer.withServer(engine: engine, clock: clock) { server in
            let hook = Recorder(name: "hook:notify", types: [.accountLocked, .accountUnlocked], startsAtNewest: true)
            let audit = Recorder(name: "audit", startsAtNewest: false, batchSize: 100)
            let service = EventDeliveryService(
                database: server.database, audit: server.audit, clock: clock, logger: Logger(label: "test"), channels: [hook, audit])
            func tick() async throws {
                try await service.deliverDue(to: hook)
                try await service.deliverDue(to: audit)
            }
            try await server.audit.record(.accountLocked, user: "u-1", details: ["n": "before"])
            try await tick()
            // The hook starts after what was recorded before it was met; the audit webhook sends that too, after the
            // server's own start-up events (which have no "n").
            let startup = audit.accepted.count - 1
            #expect(hook.accepted.isEmpty && audit.accepted.last == "before" && startup >= 1)

            for (index, type) in [AuditEventType.accountLocked, .signInFailed, .accountUnlocked, .accountLocked].enumerated() {
                try await server.audit.record(type, user: "u-1", details: ["n": "\(index)"])
            }
            hook.accept(1)
            try await tick()
            // Of the hook's batch of two (its types only), one was accepted: the other waits 10 s, then is offered again.
            #expect(hook.accepted == ["0"] && hook.offered.last == ["0", "2"])
            hook.accept(nil)
            try await tick()
            #expect(hook.accepted == ["0"])
            advance(10)
            try await tick()
            try await tick()
            #expect(hook.accepted == ["0", "2", "3"])
            #expect(hook.offered == [["0", "2"], ["2", "3"]])
            #expect(Array(audit.accepted.dropFirst(startup)) == ["before", "0", "1", "2", "3"])

            // Both pick up from where they are, as another node or a restart would.
            try await server.audit.record(.accountUnlocked, user: "u-1", details: ["n": "4"])
            let again = Recorder(name: "hook:notify", types: [.accountLocked, .accountUnlocked], startsAtNewest: true)
            try await service.deliverDue(to: again)
            #expect(again.accepted == ["4"])
        }
    }
}
