import Foundation
import Synchronization

/// Whether this node can commit: a one-row write (this node's row in `write_probe`) at most every ``interval``, its
/// outcome reused between probes. A full disk or a read-only database leaves reads working, so readiness that only
/// read would keep sending sign-ins to a node where every one of them fails.
final class WriteProbe: Sendable {
    /// The least time between two probes' writes.
    let interval: Duration
    private let node = "node-" + SecureRandom.token(byteCount: 8)
    private let last = Mutex<(at: ContinuousClock.Instant, failure: String?)?>(nil)

    init(interval: Duration = .seconds(5)) {
        self.interval = interval
    }

    /// `nil` when the node can commit, or why it cannot (the database's own reason, ``DatabaseFailure``).
    func failure(in server: IdentityServer) async -> String? {
        let now = ContinuousClock.now
        if let last = last.withLock({ $0 }), now - last.at < interval { return last.failure }
        let failure: String?
        do {
            let node = node
            let writtenAt = server.clock.now()
            try await server.database.transaction { sql in
                try await sql.raw(
                    """
                    INSERT INTO write_probe (node, written_at) VALUES (\(bind: node), \(bind: writtenAt))
                    ON CONFLICT (node) DO UPDATE SET written_at = excluded.written_at
                    """
                ).run()
            }
            failure = nil
        } catch {
            failure = DatabaseFailure.reason(of: error) ?? String(reflecting: type(of: error))
        }
        last.withLock { $0 = (now, failure) }
        return failure
    }
}
