import GatehouseDomain
import GatehouseFoundation
import Logging
import Metrics

/// Gauges of the server's state, set just before each scrape rather than on every change, so the hot paths pay
/// nothing for them: database work and password hashes under way, and the courier's backlog.
struct ScrapeGauges: Sendable {
    let database: any Database
    let hasher: PasswordHasher
    let courierQueue: CourierQueue
    let clock: UnixClock
    let logger: Logger

    func refresh() async {
        if let database = database as? ScopedDatabase {
            let underWay = database.underWay
            Gauge(label: "gatehouse_database_operations_in_flight", dimensions: [("kind", "read")]).record(underWay.reads)
            Gauge(label: "gatehouse_database_operations_in_flight", dimensions: [("kind", "transaction")]).record(underWay.transactions)
        }
        Gauge(label: "gatehouse_password_hashes_in_flight").record(hasher.hashesUnderWay)
        Gauge(label: "gatehouse_password_hash_threads").record(hasher.threads)
        do {
            let backlog = try await courierQueue.backlog()
            Gauge(label: "gatehouse_courier_queue_depth").record(backlog.count)
            let age = backlog.oldestCreatedAt.map { max(0, clock.now() - $0) } ?? 0
            Gauge(label: "gatehouse_courier_oldest_message_age_seconds").record(age)
        } catch {
            logger.warning("The courier's backlog could not be read for the metrics", metadata: ["error": "\(error)"])
        }
    }
}
