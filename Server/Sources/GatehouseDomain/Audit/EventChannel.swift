/// A reader of the audit trail that sends it on somewhere (the audit webhook, a hook at `events`): which events it
/// takes, and how it sends them. Where it got to is kept for it, by its ``name``, so every event reaches it once it is
/// recorded, in order, and again until accepted.
package protocol EventChannel: Sendable {
    /// Its key among the delivery records: `audit`, `hook:ID`.
    var name: String { get }
    /// The event types it takes; every type when `nil`.
    var types: [AuditEventType]? { get }
    /// How many events it is given at a time.
    var batchSize: Int { get }
    /// Whether a channel met for the first time starts after the newest event (a hook told about what happens from its
    /// registration on) rather than at the oldest one kept (the audit webhook, which sends the whole trail).
    var startsAtNewest: Bool { get }

    /// Sends `events` (oldest first) at `now`; how many of them, from the first, were accepted.
    func deliver(_ events: [AuditEvent], at now: Int64) async -> Int
}
