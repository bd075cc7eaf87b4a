import Foundation
import SQLKit

/// Native flows in the database, so any server node can answer the next step. Each is known by an
/// unguessable id (stored as a digest) and bound to the client that started it.
struct FlowStore: Sendable {
    let database: any Database
    let clock: UnixClock

    /// What a login flow remembers between steps.
    struct LoginState: Codable, Sendable, Equatable {
        var request: AuthorizationRequest
        var nodeID: String
        var username: String?
    }

    func create(_ state: LoginState, lifetime: Int64) async throws -> String {
        let id = SecureRandom.token()
        let now = clock.now()
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM flows WHERE expires_at <= \(bind: now)").run()
            try await sql.raw("""
                INSERT INTO flows (id_hash, kind, client_id, state, created_at, expires_at)
                VALUES (\(bind: TokenDigest.hex(id)), 'login', \(bind: state.request.clientID), \(bind: encoded), \(bind: now), \(bind: now + lifetime))
                """).run()
        }
        return id
    }

    /// The flow's state, if it exists, has not expired and belongs to `clientID`.
    func find(_ id: String, clientID: String) async throws -> LoginState? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw("""
                SELECT state FROM flows WHERE id_hash = \(bind: TokenDigest.hex(id)) AND client_id = \(bind: clientID) AND expires_at > \(bind: now)
                """).first()
        }
        guard let row else { return nil }
        return try JSONDecoder().decode(LoginState.self, from: Data(try row.decode(column: "state", as: String.self).utf8))
    }

    func update(_ id: String, to state: LoginState) async throws {
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        try await database.transaction { sql in
            try await sql.raw("UPDATE flows SET state = \(bind: encoded) WHERE id_hash = \(bind: TokenDigest.hex(id))").run()
        }
    }

    /// Ends the flow; only one caller gets `true`, so a flow completes once even when submitted twice at once.
    func finish(_ id: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM flows WHERE id_hash = \(bind: TokenDigest.hex(id)) RETURNING id_hash").first() != nil
        }
    }
}
