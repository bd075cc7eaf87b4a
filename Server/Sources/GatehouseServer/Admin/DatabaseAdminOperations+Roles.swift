import GatehouseDomain
import GatehouseFoundation

/// Who holds a role in the admin console, given and taken at the command line, in the console by an admin, and through
/// the admin API (`/admin/v1/users/{id}/admin-role`).
extension DatabaseAdminOperations {
    var roles: AdminRoleStore { AdminRoleStore(database: database, clock: clock) }

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

    /// Refuses to `what` (a verb phrase) `user` unless the one acting is an admin, when `user` holds a role that
    /// changes things: taking over their account would carry that role.
    func requireAuthority(over user: User, to what: String) async throws {
        guard !authority.isAdmin, let role = try await roles.role(of: user.id), role.canChange else { return }
        throw AdminProblem.adminOnly("Only an admin may \(what) \(user.username), who holds the \(role.rawValue) role.")
    }

    /// Refuses to `what` (a verb phrase) a client with `scopes` unless the one acting is an admin, when one of them is an
    /// admin scope: its credentials would be an admin's.
    func requireAuthority(overClientWith scopes: [String], to what: String) throws {
        guard !authority.isAdmin, let scope = scopes.first(where: ClientRegistrationRules.adminScopes.contains) else { return }
        throw AdminProblem.adminOnly("Only an admin may \(what) a client with the scope \(scope).")
    }
}
