import Foundation
import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// The console's audit trail: the newest events first, filtered by type, person, actor, client, period, or one
/// request followed through.
extension AdminConsole {
    /// The periods the trail can look back over, in seconds.
    static let periods: [(value: String, label: String, seconds: Int64)] = [
        ("hour", "The last hour", 3600), ("day", "The last day", 86_400), ("week", "The last 7 days", 7 * 86_400),
        ("month", "The last 30 days", 30 * 86_400),
    ]

    func eventsPage(_ request: Request, _ person: Operator) async throws -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        func field(_ name: String) -> String { query[name].map { String($0.trimmingCharacters(in: .whitespaces).prefix(256)) } ?? "" }
        let type = query["type"].flatMap(AuditEventType.init(rawValue:))
        let (username, actor, client, requestID) = (field("user"), field("actor"), field("client"), field("request"))
        let period = Self.periods.first { $0.value == query["period"] } ?? Self.periods[2]
        var filter = AuditLog.Filter(
            types: type.map { [$0] }, clientID: client.isEmpty ? nil : client, actor: actor.isEmpty ? nil : actor,
            requestID: requestID.isEmpty ? nil : requestID, since: clock.now() - period.seconds)
        // An hour picked on the overview.
        if let since = query["since"].flatMap(Int64.init), let until = query["until"].flatMap(Int64.init) {
            filter.since = since
            filter.until = until
        }
        var unknownUser = false
        if !username.isEmpty {
            if let user = try await users.find(username: username) { filter.userID = user.id } else { unknownUser = true }
        }
        let events = unknownUser ? [] : try await audit.newest(filter, limit: 200)
        var values = values(person, section: "Events")
        values["types"] = AuditEventType.allCases.map { ["value": $0.rawValue, "selected": $0 == type] }
        values["periods"] = Self.periods.map { ["value": $0.value, "label": $0.label, "selected": $0.value == period.value] }
        values["user"] = username
        values["actor"] = actor
        values["client"] = client
        values["request"] = requestID
        values["events"] = events.map { event -> [String: Any] in
            [
                "type": event.type.rawValue, "when": Timestamp.format(event.occurredAt), "actor": event.actor, "userID": event.userID ?? "",
                "client": event.clientID ?? "", "requestID": event.requestID ?? "", "details": Self.describe(event.details),
                // Mustache counts an empty text as there: links only where there is something to follow.
                "hasClient": event.clientID?.isEmpty == false, "hasRequest": event.requestID?.isEmpty == false,
            ]
        }
        values["none"] = events.isEmpty
        values["full"] = events.count == 200
        return PageRenderer.page(title: "Audit trail · Admin console", template: "admin-events", values)
    }

    /// `details` as one line, keys in order.
    static func describe(_ details: [String: String]) -> String {
        details.keys.sorted().map { "\($0)=\(details[$0] ?? "")" }.joined(separator: ", ")
    }
}
