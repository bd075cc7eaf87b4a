import Foundation
import GatehouseDomain
import GatehouseFoundation
import Hummingbird

/// The console's first page: the last day from the audit trail (the events the metrics count), hour by hour, the
/// courier's backlog, and who holds a role in the console (given and taken here by an admin).
extension AdminConsole {
    /// The audit events the overview counts over the last day: the same events the metrics count.
    static let counted: [(type: AuditEventType, label: String)] = [
        (.signInSucceeded, "Sign-ins"), (.signInFailed, "Failed sign-ins"), (.accountLockedOut, "Lock-outs after wrong guesses"),
        (.refreshTokenReused, "Refresh tokens reused"), (.accountCreated, "Accounts created"),
    ]

    func overview(_ person: Operator, notice: String? = nil, problem: String? = nil) async throws -> Response {
        let now = clock.now()
        let firstHour = (now / 3600 - 23) * 3600
        let perHour = try await audit.countsPerHour(AuditLog.Filter(types: Self.counted.map(\.type), since: firstHour))
        var values = values(person, section: "Overview")
        values["counts"] = Self.counted.map { type, label -> [String: Any] in
            ["label": label, "type": type.rawValue, "count": perHour.filter { $0.type == type }.reduce(0) { $0 + $1.count }]
        }
        // Sign-ins and failures hour by hour, drawn with <meter> (no script, no inline style) against the busiest hour.
        let busiest = max(1, perHour.filter { $0.type == .signInSucceeded || $0.type == .signInFailed }.map(\.count).max() ?? 0)
        values["busiest"] = busiest
        values["hours"] = (0..<24).map { index -> [String: Any] in
            let start = firstHour + Int64(index) * 3600
            func count(_ type: AuditEventType) -> Int { perHour.first { $0.hourStart == start && $0.type == type }?.count ?? 0 }
            return [
                "hour": Timestamp.format(start), "since": start, "until": start + 3600, "signIns": count(.signInSucceeded),
                "failures": count(.signInFailed), "lockouts": count(.accountLockedOut), "busiest": busiest,
            ]
        }
        let backlog = try await courierQueue.backlog()
        values["queued"] = backlog.count
        values["oldest"] = backlog.oldestCreatedAt.map { "\(max(0, now - $0)) seconds" } ?? "none"
        values["admins"] = try await roles.holders().map { holder -> [String: Any] in
            ["username": holder.username, "role": holder.role.rawValue, "id": holder.userID, "isSelf": holder.userID == person.user.id]
        }
        values["roles"] = AdminRole.allCases.map { ["value": $0.rawValue] }
        if let notice { values["notice"] = notice }
        if let problem { values["problem"] = problem }
        return PageRenderer.page(title: "Admin console", template: "admin-overview", values, status: problem == nil ? .ok : .badRequest)
    }

    /// Gives the person the form names a role, or takes theirs away: an admin's change only (``submitted(_:needs:_:)``).
    /// An admin cannot take their own role, so the console never loses its last admin by a slip.
    func changeRoles(_ form: FormParameters, by person: Operator) async throws -> Response {
        let operations = operations(person)
        let username = Self.text(form, "username") ?? ""
        do {
            switch form["change"] {
            case "grant":
                guard let role = form["role"].flatMap(AdminRole.init(rawValue:)) else { return Self.unknownChange }
                guard username.lowercased() != person.user.username else {
                    return try await overview(person, problem: "You cannot change your own role; another admin can.")
                }
                try await operations.grantAdminRole(role, to: username)
                return back(to: "", done: "role_granted")
            case "revoke":
                guard username.lowercased() != person.user.username else {
                    return try await overview(person, problem: "You cannot take your own role; another admin can.")
                }
                try await operations.revokeAdminRole(of: username)
                return back(to: "", done: "role_revoked")
            default:
                return Self.unknownChange
            }
        } catch let problem as AdminProblem {
            return try await overview(person, problem: problem.detail)
        }
    }
}
