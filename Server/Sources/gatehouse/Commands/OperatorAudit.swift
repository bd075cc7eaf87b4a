import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseServer

/// What an operator does from the command line goes into the audit trail, in the transaction of the change, with
/// the operator's login name as the actor.
enum OperatorAudit {
    static var actor: String { "operator:" + (ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName) }

    static func record(
        _ type: AuditEventType, user: String? = nil, client: String? = nil, details: [String: String] = [:], in database: any Database
    ) async throws {
        try await AuditLog(database: database).record(type, user: user, client: client, actor: actor, details: details)
    }
}
