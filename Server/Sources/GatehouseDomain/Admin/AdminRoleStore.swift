import Foundation
import GatehouseFoundation
import SQLKit

/// Who holds a role in the admin console (`gatehouse admins`): one role per person, kept until taken away or the
/// account is deleted. Each change is audited in its transaction.
public struct AdminRoleStore: Sendable {
    package let database: any Database
    package let audit: AuditLog
    package let clock: UnixClock

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.audit = AuditLog(database: database, clock: clock)
        self.clock = clock
    }

    /// A person's role, as listed.
    public struct Holder: Sendable, Codable, Equatable {
        public var userID: String
        public var username: String
        public var role: AdminRole
        public var grantedAt: Int64
        /// Who gave it: `operator:LOGIN` for the command line, `user:ID` for the console.
        public var grantedBy: String

        package enum CodingKeys: String, CodingKey {
            case username, role
            case userID = "user_id"
            case grantedAt = "granted_at"
            case grantedBy = "granted_by"
        }
    }

    /// The role of `userID`, or `nil` for someone who holds none.
    public func role(of userID: String) async throws -> AdminRole? {
        try await database.read { sql in
            try await sql.raw("SELECT role FROM admin_roles WHERE user_id = \(bind: userID)").first()
                .flatMap { AdminRole(rawValue: try $0.decode(column: "role", as: String.self)) }
        }
    }

    /// Everyone holding a role, by username.
    public func holders() async throws -> [Holder] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT admin_roles.user_id, users.username, admin_roles.role, admin_roles.granted_at, admin_roles.granted_by
                FROM admin_roles JOIN users ON users.id = admin_roles.user_id ORDER BY users.username
                """
            ).all().compactMap { row in
                guard let role = AdminRole(rawValue: try row.decode(column: "role", as: String.self)) else { return nil }
                return Holder(
                    userID: try row.decode(column: "user_id", as: String.self), username: try row.decode(column: "username", as: String.self), role: role,
                    grantedAt: try row.decode(column: "granted_at", as: Int64.self), grantedBy: try row.decode(column: "granted_by", as: String.self))
            }
        }
    }

    /// Gives `userID` the role `role` (replacing any other), as `actor` did; audited.
    public func grant(_ role: AdminRole, to userID: String, by actor: String) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM admin_roles WHERE user_id = \(bind: userID)").run()
            try await sql.raw(
                """
                INSERT INTO admin_roles (user_id, role, granted_at, granted_by)
                VALUES (\(bind: userID), \(bind: role.rawValue), \(bind: now), \(bind: actor))
                """
            ).run()
            try await audit.record(.adminRoleGranted, user: userID, actor: actor, details: ["role": role.rawValue])
        }
    }

    /// Takes `userID`'s role away, as `actor` did; whether they held one. Audited when they did.
    @discardableResult
    public func revoke(from userID: String, by actor: String) async throws -> Bool {
        try await database.transaction { sql in
            guard
                let held = try await sql.raw("DELETE FROM admin_roles WHERE user_id = \(bind: userID) RETURNING role").first()?
                    .decode(column: "role", as: String.self)
            else { return false }
            try await audit.record(.adminRoleRevoked, user: userID, actor: actor, details: ["role": held])
            return true
        }
    }
}
