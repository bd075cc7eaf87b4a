import Foundation
import GatehouseFoundation
import GatehouseProtocol
import Logging
import Metrics
import NIOConcurrencyHelpers

/// Hands sign-in pushes to APNs or FCM, or keeps them in the development outbox for a platform not configured. A flow
/// never waits for a push: it goes out after the flow's transaction commits, and one that fails is logged and counted
/// (`gatehouse_pushes_total{result}`); the person asks for another from the page. A token the platform says is no
/// longer registered is forgotten (`forget`).
public final class PushNotifier: Sendable {
    private let apns: APNsSender?
    private let fcm: FCMSender?
    private let clock: UnixClock
    private let logger: Logger
    private let forget: @Sendable (PushTarget) async -> Void
    /// The latest pushes kept in the outbox, newest last (at most ``outboxLimit``).
    private let outbox = NIOLockedValueBox<[PushApproval]>([])
    package static let outboxLimit = 100

    package init(
        settings: PushSettings, clock: UnixClock, logger: Logger, forget: @escaping @Sendable (PushTarget) async -> Void = { _ in }
    ) throws {
        apns = try settings.apns.map { try APNsSender(settings: $0, timeout: settings.timeout, clock: clock) }
        fcm = try settings.fcm.map { try FCMSender(settings: $0, timeout: settings.timeout, clock: clock) }
        self.clock = clock
        self.logger = logger
        self.forget = forget
    }

    /// Sends `push` once the surrounding transaction (if any) commits, on `database`.
    package func sendAfterCommit(_ push: PushApproval, on database: any Database) {
        TransactionScope.afterCommit(of: database) { Task { await CallerPresence.unattended { await self.send(push) } } }
    }

    /// Sends `push` now; never throws: the outcome is logged and counted.
    package func send(_ push: PushApproval) async {
        guard push.expiresAt > clock.now() else { return count("expired") }
        let metadata: Logger.Metadata = ["platform": "\(push.target.platform.rawValue)", "session": "\(push.payload.sessionID.prefix(8))"]
        do {
            switch push.target.platform {
            case .apns:
                guard let apns else { return keep(push) }
                try await apns.send(push)
            case .fcm:
                guard let fcm else { return keep(push) }
                try await fcm.send(push)
            }
            logger.info("Sent a sign-in push", metadata: metadata)
            count("sent")
        } catch let failure as PushFailure {
            logger.warning("A sign-in push was refused", metadata: metadata.merging(["reason": "\(failure.description)"]) { $1 })
            count(failure.unregistered ? "unregistered" : "failed")
            if failure.unregistered { await forget(push.target) }
        } catch {
            logger.warning("A sign-in push could not be sent", metadata: metadata.merging(["reason": "\(error)"]) { $1 })
            count("failed")
        }
    }

    /// The pushes kept in the outbox (platforms without settings), newest last: for development and tests.
    public func outboxed() -> [PushApprovalPayload] {
        outbox.withLockedValue { $0.map(\.payload) }
    }

    private func keep(_ push: PushApproval) {
        outbox.withLockedValue { kept in
            kept.append(push)
            if kept.count > Self.outboxLimit { kept.removeFirst(kept.count - Self.outboxLimit) }
        }
        logger.info("Kept a sign-in push in the outbox", metadata: ["platform": "\(push.target.platform.rawValue)"])
        count("outbox")
    }

    private func count(_ result: String) {
        Counter(label: "gatehouse_pushes_total", dimensions: [("result", result)]).increment()
    }
}
