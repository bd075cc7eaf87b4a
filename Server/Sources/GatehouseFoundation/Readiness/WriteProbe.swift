import Foundation
import SQLKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this node can commit, checked at most every ``interval`` and the outcome reused between probes. A full disk
/// or a read-only database leaves reads working, so readiness that only read would keep sending sign-ins to a node
/// where every one of them fails.
///
/// A small write can still fit where a sign-in's does not (an update in place, a page with room), so three things
/// say "cannot commit": the probe's own insert of a new row failing, a real write that failed for a full disk within
/// the last interval, and — for SQLite — less than ``minimumFreeSpace`` left on the disk that holds the database.
package final class WriteProbe: Sendable {
    /// The least time between two probes' writes.
    package let interval: Duration
    /// Below this much free space on the database's disk, SQLite writes may fail any moment.
    package static let minimumFreeSpace: UInt64 = 1 << 20
    private let database: any Database
    /// The SQLite database file, whose disk's free space is checked; `nil` for PostgreSQL.
    private let sqlitePath: String?
    private let clock: UnixClock
    private let node = "node-" + SecureRandom.token(byteCount: 8)
    private let writes = Atomic<Int>(0)
    private let last = Mutex<(at: ContinuousClock.Instant, failure: String?)?>(nil)

    /// A probe of `database` (stored at `location`), writing `clock`'s time at most every `interval`.
    package init(database: any Database, location: DatabaseLocation, clock: UnixClock, interval: Duration = .seconds(5)) {
        self.database = database
        if case .sqlite(let path) = location, path != ":memory:" { sqlitePath = path } else { sqlitePath = nil }
        self.clock = clock
        self.interval = interval
    }

    /// `nil` when the node can commit, or why it cannot (the database's own reason, ``DatabaseFailure``).
    package func failure() async -> String? {
        let now = ContinuousClock.now
        if let last = last.withLock({ $0 }), now - last.at < interval { return last.failure }
        let failure = await check(at: now)
        last.withLock { $0 = (now, failure) }
        return failure
    }

    private func check(at now: ContinuousClock.Instant) async -> String? {
        if let full = (database as? ScopedDatabase)?.lastFullDiskFailure, now - full < interval {
            return "a write failed for a full disk \(full.duration(to: now).components.seconds) s ago"
        }
        if let path = sqlitePath, let free = Self.freeSpace(nextTo: path), free < Self.minimumFreeSpace {
            return "the disk holding \(path) has \(free) bytes free"
        }
        // A new row each time, like a token's insert, and this node's earlier ones removed in the same transaction.
        let key = node + "-" + String(writes.add(1, ordering: .relaxed).newValue)
        let writtenAt = clock.now()
        do {
            try await database.transaction { [node] sql in
                try await sql.raw("INSERT INTO write_probe (node, written_at) VALUES (\(bind: key), \(bind: writtenAt))").run()
                try await sql.raw("DELETE FROM write_probe WHERE node LIKE \(bind: node + "-%") AND node <> \(bind: key)").run()
            }
            return nil
        } catch {
            return DatabaseFailure.reason(of: error) ?? String(reflecting: type(of: error))
        }
    }

    /// The bytes an unprivileged process may still write on the file system of the folder holding `path`.
    package static func freeSpace(nextTo path: String) -> UInt64? {
        var info = statvfs()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard statvfs(folder, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}

extension WriteProbe {
    /// The probe row of a node gone for a day.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "write_probe", key: "node", condition: "written_at <= \(bind: now - RetentionRule.day)")
    }
}
