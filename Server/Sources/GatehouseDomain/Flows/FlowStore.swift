import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Flows in the database, so any server node can answer the next step. Each is known by an unguessable
/// id (stored as a digest) and bound to who started it: an app's flow to its client, a hosted page's
/// flow to a secret in the browser's cookie (so a flow id seen in a URL is useless elsewhere).
package struct FlowStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// Who may continue a flow.
    package enum Owner: Sendable {
        /// An app, continuing through the JSON API with its client id.
        case client(String)
        /// A browser, continuing through the hosted page with the secret from its cookie.
        case browser(binding: String)
    }

    package func create(_ state: LoginState, owner: Owner, lifetime: Int64) async throws -> String {
        let id = SecureRandom.token()
        let now = clock.now()
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let bindingHash: String? = if case .browser(let binding) = owner { TokenDigest.hex(binding) } else { nil }
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO flows (id_hash, kind, client_id, state, created_at, expires_at, browser_binding_hash)
                VALUES (\(bind: TokenDigest.hex(id)), 'login', \(bind: state.request.clientID), \(bind: encoded), \(bind: now),
                    \(bind: now + lifetime), \(bind: bindingHash))
                """
            ).run()
        }
        return id
    }

    /// The flow's state and the digest of its browser binding (`nil` for an app's flow): for another provider's answer,
    /// which arrives without the app's client id or (on a cross-site POST) the browser's cookie and is checked by its `state`.
    package func locate(_ id: String) async throws -> (state: LoginState, browserBindingHash: String?)? {
        try await read(id).map { ($0.state, $0.bindingHash) }
    }

    /// The flow's state, if it exists, has not expired and belongs to `owner`.
    package func find(_ id: String, owner: Owner) async throws -> LoginState? {
        guard let stored = try await read(id) else { return nil }
        switch owner {
        case .client(let clientID):
            guard stored.bindingHash == nil, stored.clientID == clientID else { return nil }
        case .browser(let binding):
            guard let bindingHash = stored.bindingHash, ConstantTime.equals(bindingHash, TokenDigest.hex(binding)) else { return nil }
        }
        return stored.state
    }

    private func read(_ id: String) async throws -> (state: LoginState, clientID: String, bindingHash: String?)? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT state, client_id, browser_binding_hash, version FROM flows
                WHERE id_hash = \(bind: TokenDigest.hex(id)) AND expires_at > \(bind: now)
                """
            ).first()
        }
        guard let row else { return nil }
        // A flow stored by an older version of the engine, in a form this one does not read, has expired for it.
        guard var state = try? JSONDecoder().decode(LoginState.self, from: Data(try row.decode(column: "state", as: String.self).utf8)) else {
            return nil
        }
        state.version = try row.decode(column: "version", as: Int.self)
        state.id = id
        return (state, try row.decode(column: "client_id", as: String.self), try row.decode(column: "browser_binding_hash", as: String?.self))
    }

    /// Another submission moved the flow on since this one read it; nothing of this one's state was written.
    package struct Superseded: Error, Sendable {
        package init() {}
    }

    /// Writes `state` over the version it was read at.
    /// - Throws: ``Superseded`` when another submission wrote the flow first (or finished it).
    package func update(_ id: String, to state: LoginState) async throws {
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let written = try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE flows SET state = \(bind: encoded), version = version + 1
                WHERE id_hash = \(bind: TokenDigest.hex(id)) AND version = \(bind: state.version) RETURNING version
                """
            ).first() != nil
        }
        guard written else { throw Superseded() }
    }

    /// Counts one code check against the flow before it happens, in one conditional statement: however many
    /// submissions arrive at once, at most `limit` codes are checked without a right one in between.
    /// - Returns: the checks counted so far including this one, or `nil` when the limit is used up (or the flow is gone).
    package func takeCodeCheck(_ id: String, limit: Int) async throws -> Int? {
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE flows SET code_checks = code_checks + 1
                WHERE id_hash = \(bind: TokenDigest.hex(id)) AND code_checks < \(bind: limit) RETURNING code_checks
                """
            ).first().map { try $0.decode(column: "code_checks", as: Int.self) }
        }
    }

    /// A right code: the flow's count of code checks starts again for its next code.
    package func clearCodeChecks(_ id: String) async throws {
        try await database.transaction { sql in
            try await sql.raw("UPDATE flows SET code_checks = 0 WHERE id_hash = \(bind: TokenDigest.hex(id))").run()
        }
    }

    /// Ends the flow; only one caller gets `true`, so a flow completes once even when submitted twice at once.
    /// With `version`, only while the flow is still at that version: a sign-in finishes from the step it was read at.
    package func finish(_ id: String, at version: Int? = nil) async throws -> Bool {
        try await database.transaction { sql in
            if let version {
                try await sql.raw(
                    """
                    DELETE FROM flows WHERE id_hash = \(bind: TokenDigest.hex(id)) AND version = \(bind: version) RETURNING id_hash
                    """
                ).first() != nil
            } else {
                try await sql.raw("DELETE FROM flows WHERE id_hash = \(bind: TokenDigest.hex(id)) RETURNING id_hash").first() != nil
            }
        }
    }

    package init(database: any Database, clock: UnixClock) {
        self.database = database
        self.clock = clock
    }
}

extension FlowStore {
    /// A flow nothing can continue once it has expired.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "flows", key: "id_hash", condition: "expires_at <= \(bind: now)")
    }
}
