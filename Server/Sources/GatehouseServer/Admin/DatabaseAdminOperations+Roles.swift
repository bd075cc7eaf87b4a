import GatehouseDomain
import GatehouseFoundation

/// Who holds a role in the admin console: on the database only (the command line on the server's machine, and the
/// console itself), never through the admin API, whose clients are machines.
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

    /// Takes the console role of the person named `username` away.
    /// - Throws: ``AdminProblem`` not found when they hold none.
    public func revokeAdminRole(of username: String) async throws {
        guard try await roles.revoke(from: try await user(named: username).id, by: grantor) else {
            throw AdminProblem.notFound("\(username.lowercased()) holds no role in the admin console.")
        }
    }
}
