import Foundation
import GatehouseDomain
import GatehouseFoundation
import Logging
import SQLKit
import ServiceLifecycle

/// Sends the audit trail on beside the HTTP server, to each of its ``EventChannel``s at once (the audit webhook, hooks at
/// `events`): every second, the channel's events after the last it accepted. A channel that refused or failed waits
/// (10 s, doubling, at most an hour) and is sent the same events again. Delivery is in order and at least once; where
/// each channel got to is kept in `event_deliveries`, so a restart, or another node, goes on from there.
public struct EventDeliveryService: Service {
    let database: any Database
    let audit: AuditLog
    let clock: UnixClock
    let logger: Logger
    let channels: [any EventChannel]
    let interval: Duration

    /// A service that sends `audit`'s events to `channels`, keeping their progress in `database`.
    package init(
        database: any Database, audit: AuditLog, clock: UnixClock, logger: Logger, channels: [any EventChannel], interval: Duration = .seconds(1)
    ) {
        self.database = database
        self.audit = audit
        self.clock = clock
        self.logger = logger
        self.channels = channels
        self.interval = interval
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // One slow receiver never holds up another.
                await withTaskGroup(of: Void.self) { group in
                    for channel in channels {
                        group.addTask {
                            do {
                                try await deliverDue(to: channel)
                            } catch {
                                logger.warning("Event delivery failed", metadata: ["channel": "\(channel.name)", "error": "\(error)"])
                            }
                        }
                    }
                }
                try await Task.sleep(for: interval)
            }
        }
    }

    /// Sends `channel` its next events when some are waiting and no retry delay is running.
    func deliverDue(to channel: any EventChannel) async throws {
        let now = clock.now()
        let state = try await database.read { sql in
            try await sql.raw("SELECT last_event_id, failures, next_attempt_at FROM event_deliveries WHERE channel = \(bind: channel.name)").first()
        }
        guard let state else {
            // Met for the first time: a hook is told what happens from now on; the audit webhook gets the whole trail.
            if channel.startsAtNewest {
                try await save(channel, last: try await audit.newestEventID(), failures: 0, nextAttempt: now)
            } else {
                try await deliver(to: channel, after: nil, failures: 0, at: now)
            }
            return
        }
        guard try state.decode(column: "next_attempt_at", as: Int64.self) <= now else { return }
        try await deliver(
            to: channel, after: try state.decode(column: "last_event_id", as: String?.self), failures: try state.decode(column: "failures", as: Int.self),
            at: now)
    }

    private func deliver(to channel: any EventChannel, after last: String?, failures: Int, at now: Int64) async throws {
        let events = try await audit.events(AuditLog.Filter(types: channel.types, after: last), limit: channel.batchSize)
        guard !events.isEmpty else { return }
        let accepted = await channel.deliver(events, at: now)
        let failed = accepted < events.count
        try await save(
            channel, last: accepted > 0 ? events[accepted - 1].id : last, failures: failed ? failures + 1 : 0,
            nextAttempt: now + (failed ? min(Int64(10) << min(failures, 12), 3600) : 0))
    }

    private func save(_ channel: any EventChannel, last: String?, failures: Int, nextAttempt: Int64) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM event_deliveries WHERE channel = \(bind: channel.name)").run()
            try await sql.raw(
                """
                INSERT INTO event_deliveries (channel, last_event_id, failures, next_attempt_at)
                VALUES (\(bind: channel.name), \(bind: last), \(bind: failures), \(bind: nextAttempt))
                """
            ).run()
        }
    }
}
