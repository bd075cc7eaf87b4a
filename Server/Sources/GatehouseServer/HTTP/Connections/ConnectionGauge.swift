import Foundation
import HummingbirdCore
import Logging
import Synchronization

/// Counts open connections against the limit, for the listener (which stops accepting at the limit, leaving
/// new connections in the kernel's queue until one closes) and for each connection's deadlines (which shorten
/// under pressure).
final class ConnectionGauge: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)
    private let lastWarning = Atomic<Int64>(0)
    private let logger: Logger

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    var count: Int { open.load(ordering: .relaxed) }

    /// Three quarters of the limit in use: connections waiting for a request get the short pressure timeout.
    var isUnderPressure: Bool { count * 4 >= limit * 3 }

    func opened() { open.add(1, ordering: .relaxed) }
    func closed() { open.subtract(1, ordering: .relaxed) }

    /// Whether another connection may be accepted; at the limit it says so in the log, at most once a minute.
    func admitsAnother() -> Bool {
        guard count >= limit else { return true }
        let now = Int64(Date().timeIntervalSince1970)
        let last = lastWarning.load(ordering: .relaxed)
        if now - last >= 60, lastWarning.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged {
            logger.warning(
                "Connection limit of \(limit) reached: new connections wait until others close",
                metadata: ["open": "\(count)"])
        }
        return false
    }

    /// The listener's view of this gauge.
    var admission: Admission { Admission(gauge: self) }

    /// The delegate Hummingbird's listener asks before accepting.
    struct Admission: AvailableConnectionsDelegate {
        let gauge: ConnectionGauge
        mutating func connectionOpened() { gauge.opened() }
        mutating func connectionClosed() { gauge.closed() }
        func isAcceptingNewConnections() -> Bool { gauge.admitsAnother() }
    }
}
