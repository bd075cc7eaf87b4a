import GatehouseDomain
import GatehouseFoundation

/// Who holds a role in the admin console, given and taken at the command line, in the console by an admin, and through
/// the admin API (`/admin/v1/users/{id}/admin-role`).
extension DatabaseAdminOperations {
    private var roles: AdminRoleStore { AdminRoleStore(database: database, clock: clock) }

    /// The one who acts, as the role's record names them.
    private var grantor: String { actor ?? AuditContext.current.actor ?? "system" }

    public func adminRoleHolders() async throws -> [AdminRoleStore.Holder] {
        try await roles.holders()
    }

    /// Gives the person named `username` the console role `role`, replacing any other.
    public func grantAdminRole(_ role: AdminRole, to username: String) async throws {
        try await roles.grant(role, to: try await user(named: username).id, by: grantor)
    }

    /// The role of the user `id`, as its record says.
    /// - Throws: ``AdminProblem`` not found when they hold none.
    public func adminRole(of userID: String) async throws -> AdminRoleStore.Holder {
        let user = try await account(userID)
        guard let holder = try await roles.holders().first(where: { $0.userID == user.id }) else {
            throw AdminProblem.notFound("\(user.username) holds no role in the admin console.")
        }
        return holder
    }

    /// Takes the console role of the person named `username` away.
    /// - Throws: ``AdminProblem`` not found when they hold none.
    public func revokeAdminRole(of username: String) async throws {
        guard try await roles.revoke(from: try await user(named: username).id, by: grantor) else {
            throw AdminProblem.notFound("\(username.lowercased()) holds no role in the admin console.")
        }
    }
}
