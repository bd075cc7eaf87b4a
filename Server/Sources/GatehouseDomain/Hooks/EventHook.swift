import Foundation
import GatehouseFoundation

/// A hook at the point `events`: told, one request per event, about the audit events it names, once they are recorded.
/// Each request is the event as Standard Webhooks lays out a notification (`type`, `timestamp`, `data`), signed, with
/// the event's id as `webhook-id` on every attempt, so a receiver drops what it already has. Nothing waits for it.
package struct EventHook: EventChannel {
    package let target: HookTarget
    package let caller: HookCaller

    package init(target: HookTarget, caller: HookCaller) {
        self.target = target
        self.caller = caller
    }

    /// The hooks of `hooks` at `events`, each a channel of its own.
    package static func all(_ hooks: [HookTarget], caller: HookCaller) -> [EventHook] {
        hooks.filter { $0.points.contains(.events) }.map { EventHook(target: $0, caller: caller) }
    }

    package var name: String { "hook:\(target.id)" }
    package var types: [AuditEventType]? { target.events }
    package var batchSize: Int { 50 }
    package var startsAtNewest: Bool { true }

    /// What the hook is sent for one event.
    struct Notification: Encodable {
        var type: String
        /// When the event happened, RFC 3339 in UTC.
        var timestamp: String
        var data: AuditEvent
    }

    package func deliver(_ events: [AuditEvent], at now: Int64) async -> Int {
        for (index, event) in events.enumerated() {
            let notification = Notification(type: event.type.rawValue, timestamp: Timestamp.format(event.occurredAt), data: event)
            // Any 2xx is taken as received; what it says is not read.
            let sent = await caller.call(target, at: .events, request: notification, id: "evt_\(event.id)") { _ in () }
            guard case .success = sent else { return index }
        }
        return events.count
    }
}
