import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird

/// The console's pages: the overview, people (search, one person), and the audit trail.
extension AdminConsole {
    /// The audit events the overview counts over the last day: the same events the metrics count.
    static let counted: [(type: AuditEventType, label: String)] = [
        (.signInSucceeded, "Sign-ins"), (.signInFailed, "Failed sign-ins"), (.accountLockedOut, "Lock-outs after wrong guesses"),
        (.refreshTokenReused, "Refresh tokens reused"), (.accountCreated, "Accounts created"),
    ]
    func overview(_ person: Operator) async throws -> Response {
        let since = clock.now() - 86_400
        var counts: [[String: Any]] = []
        for (type, label) in Self.counted {
            counts.append(["label": label, "type": type.rawValue, "count": try await audit.count(AuditLog.Filter(types: [type], since: since))])
        }
        var values = values(person, section: "Overview")
        values["counts"] = counts
        values["admins"] = try await roles.holders().map { ["username": $0.username, "role": $0.role.rawValue, "id": $0.userID] }
        return PageRenderer.page(title: "Admin console", template: "admin-overview", values)
    }

    /// People, found by a part of their username, email address or name.
    func usersPage(_ request: Request, _ person: Operator) async throws -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        let text = query["q"].map { String($0.prefix(100)) }
        let found = try await users.search(text: text?.isEmpty == false ? text : nil, locked: nil, after: query["after"], limit: 50)
        var values = values(person, section: "Users")
        values["q"] = text ?? ""
        values["users"] = found.map { user -> [String: Any] in
            ["id": user.id, "username": user.username, "email": user.email, "name": user.name ?? "", "locked": user.isLocked]
        }
        values["none"] = found.isEmpty
        if found.count == 50, let last = found.last {
            values["next"] = "?" + FormEncoding.encode([("q", text ?? ""), ("after", last.id)])
        }
        return PageRenderer.page(title: "Users · Admin console", template: "admin-users", values)
    }

    /// One person: their profile, where they are signed in, and what happened to their account.
    func userPage(_ id: String, _ person: Operator, request: Request, problem: String? = nil) async throws -> Response {
        let operations = operations(person.actor)
        guard let user = try? await operations.user(id: id) else {
            return PageRenderer.error(title: "Not found", message: "There is no user with that id.", status: .notFound)
        }
        var values = values(person, section: "Users")
        var shown: [String: Any] = [
            "id": user.id, "username": user.username, "email": user.email, "emailVerified": user.emailVerified, "locked": user.locked,
            "hasPassword": user.hasPassword, "created": Timestamp.format(user.createdAt),
        ]
        // Left out when there is none: the template shows a row only for what the account has.
        if let name = user.name { shown["name"] = name }
        if let phone = user.phoneNumber { shown["phone"] = phone }
        values["user"] = shown
        values["action"] = Self.path + "/users/" + user.id
        values["sessions"] = try await operations.browserSessions(of: user.id).map { session -> [String: Any] in
            [
                "id": session.id, "methods": session.methods.joined(separator: " "), "signedIn": Timestamp.format(session.authenticatedAt),
                "lastSeen": Timestamp.format(session.lastSeenAt), "address": session.address ?? "", "browser": session.userAgent ?? "",
            ]
        }
        values["events"] = try await audit.recent(of: user.id, limit: 20).map { event -> [String: Any] in
            ["type": event.type.rawValue, "when": Timestamp.format(event.occurredAt), "actor": event.actor, "address": event.address ?? ""]
        }
        let query = FormParameters(encoded: request.uri.query ?? "")
        if let notice = query["done"].flatMap({ Self.notices[$0] }) { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "\(user.username) · Admin console", template: "admin-user", values, status: problem == nil ? .ok : .badRequest)
    }

    /// The audit trail, newest last, filtered by type and by a person's username.
    func eventsPage(_ request: Request, _ person: Operator) async throws -> Response {
        let query = FormParameters(encoded: request.uri.query ?? "")
        let type = query["type"].flatMap(AuditEventType.init(rawValue:))
        let username = query["user"].map { String($0.prefix(256)) } ?? ""
        var filter = AuditLog.Filter(types: type.map { [$0] }, since: clock.now() - 7 * 86_400)
        var unknownUser = false
        if !username.isEmpty {
            if let user = try await users.find(username: username) { filter.userID = user.id } else { unknownUser = true }
        }
        let events = unknownUser ? [] : try await audit.events(filter, limit: 200)
        var values = values(person, section: "Events")
        values["types"] = AuditEventType.allCases.map { ["value": $0.rawValue, "selected": $0 == type] }
        values["user"] = username
        values["events"] = events.map { event -> [String: Any] in
            [
                "type": event.type.rawValue, "when": Timestamp.format(event.occurredAt), "actor": event.actor, "userID": event.userID ?? "",
                "client": event.clientID ?? "", "requestID": event.requestID ?? "", "details": Self.describe(event.details),
            ]
        }
        values["none"] = events.isEmpty
        return PageRenderer.page(title: "Audit trail · Admin console", template: "admin-events", values)
    }

    /// `details` as one line, keys in order.
    static func describe(_ details: [String: String]) -> String {
        details.keys.sorted().map { "\($0)=\(details[$0] ?? "")" }.joined(separator: ", ")
    }
}
