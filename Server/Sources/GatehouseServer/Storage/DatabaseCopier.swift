import SQLKit

/// Copies everything Gatehouse stores from one database to another (e.g. SQLite to PostgreSQL), so an
/// operator can move without losing users, clients, keys or sessions.
///
/// Signing keys are copied still sealed: the target's servers need the same server secret.
public struct DatabaseCopier: Sendable {
    enum ColumnType: Sendable { case text, integer }

    struct Table: Sendable {
        let name: String
        let columns: [(name: String, type: ColumnType)]
    }

    /// Every table and column, in an order that satisfies foreign keys. A test checks this against the schema.
    static let tables: [Table] = [
        Table(
            name: "users",
            columns: [
                ("id", .text), ("username", .text), ("email", .text), ("email_verified", .integer), ("name", .text),
                ("password_hash", .text), ("locked", .integer), ("created_at", .integer), ("updated_at", .integer),
                ("given_name", .text), ("family_name", .text), ("phone_number", .text), ("phone_verified", .integer),
                ("password_changed_at", .integer), ("enrollment_declined_at", .integer), ("passkey_user_handle", .text),
            ]),
        Table(
            name: "clients",
            columns: [
                ("id", .text), ("name", .text), ("secret_hash", .text), ("redirect_uris", .text),
                ("post_logout_redirect_uris", .text), ("scopes", .text), ("id_token_algorithm", .text), ("created_at", .integer),
                ("require_pkce", .integer), ("device_grant", .integer), ("require_dpop", .integer),
            ]),
        Table(
            name: "signing_keys",
            columns: [
                ("kid", .text), ("algorithm", .text), ("public_jwk", .text), ("sealed_private_key", .text),
                ("created_at", .integer), ("retired_at", .integer), ("published_until", .integer),
            ]),
        Table(
            name: "browser_sessions",
            columns: [
                ("id_hash", .text), ("user_id", .text), ("auth_time", .integer), ("amr", .text),
                ("created_at", .integer), ("expires_at", .integer), ("last_seen_at", .integer),
            ]),
        Table(
            name: "authorization_codes",
            columns: [
                ("code_hash", .text), ("grant_id", .text), ("client_id", .text), ("user_id", .text),
                ("redirect_uri", .text), ("scope", .text), ("nonce", .text), ("code_challenge", .text),
                ("auth_time", .integer), ("amr", .text), ("created_at", .integer), ("expires_at", .integer), ("dpop_jkt", .text),
                ("consumed_at", .integer),
            ]),
        Table(
            name: "access_tokens",
            columns: [
                ("token_hash", .text), ("grant_id", .text), ("client_id", .text), ("user_id", .text),
                ("scope", .text), ("created_at", .integer), ("expires_at", .integer), ("revoked_at", .integer), ("jkt", .text),
            ]),
        Table(
            name: "refresh_tokens",
            columns: [
                ("token_hash", .text), ("grant_id", .text), ("client_id", .text), ("user_id", .text),
                ("scope", .text), ("auth_time", .integer), ("amr", .text), ("created_at", .integer),
                ("expires_at", .integer), ("used_at", .integer), ("revoked_at", .integer), ("jkt", .text), ("successor_prefix", .text),
            ]),
        Table(
            name: "flows",
            columns: [
                ("id_hash", .text), ("kind", .text), ("client_id", .text), ("state", .text), ("code_guesses", .integer), ("created_at", .integer),
                ("expires_at", .integer), ("browser_binding_hash", .text), ("version", .integer),
            ]),
        Table(
            name: "authenticators",
            columns: [
                ("id", .text), ("user_id", .text), ("kind", .text), ("sealed_secret", .text),
                ("parameters", .text), ("last_used_step", .integer), ("created_at", .integer),
            ]),
        Table(
            name: "passkeys",
            columns: [
                ("id", .text), ("user_id", .text), ("credential_id", .text), ("public_key", .text), ("sign_count", .integer),
                ("aaguid", .text), ("user_verified", .integer), ("backup_eligible", .integer), ("backed_up", .integer),
                ("attestation", .text), ("transports", .text), ("name", .text), ("created_at", .integer), ("last_used_at", .integer),
            ]),
        Table(
            name: "federated_identities",
            columns: [
                ("provider", .text), ("subject", .text), ("user_id", .text), ("email", .text), ("sealed_tokens", .text), ("created_at", .integer),
                ("last_used_at", .integer),
            ]),
        Table(
            name: "audit_events",
            columns: [
                ("id", .text), ("type", .text), ("occurred_at", .integer), ("actor", .text), ("user_id", .text), ("client_id", .text),
                ("address", .text), ("user_agent", .text), ("request_id", .text), ("details", .text),
            ]),
        Table(
            name: "admin_tokens",
            columns: [
                ("id", .text), ("name", .text), ("token_hash", .text), ("read_only", .integer), ("created_at", .integer), ("expires_at", .integer),
                ("revoked_at", .integer), ("last_used_at", .integer),
            ]),
        Table(
            name: "audit_delivery", columns: [("id", .integer), ("last_event_id", .text), ("failures", .integer), ("next_attempt_at", .integer)]),
        Table(name: "recovery_codes", columns: [("code_hash", .text), ("user_id", .text), ("created_at", .integer), ("used_at", .integer)]),
        Table(
            name: "one_time_codes",
            columns: [
                ("id", .text), ("flow_hash", .text), ("purpose", .text), ("channel", .text),
                ("code_hash", .text), ("attempts", .integer), ("sends", .integer), ("last_sent_at", .integer),
                ("expires_at", .integer), ("consumed_at", .integer),
            ]),
        Table(
            name: "courier_messages",
            columns: [
                ("id", .text), ("channel", .text), ("recipient", .text), ("template", .text),
                ("sealed_content", .text), ("status", .text), ("attempts", .integer),
                ("next_attempt_at", .integer), ("last_error", .text), ("created_at", .integer), ("sent_at", .integer),
            ]),
        Table(
            name: "attempt_counters",
            columns: [
                ("scope", .text), ("subject_hash", .text), ("failures", .integer), ("blocks", .integer),
                ("last_attempt_at", .integer), ("blocked_until", .integer),
            ]),
        Table(
            name: "device_identities",
            columns: [
                ("id", .text), ("secret_hash", .text), ("user_id", .text), ("email", .text),
                ("device_name", .text), ("state", .text), ("sealed_oprf_key", .text), ("public_key", .text),
                ("pin_failures", .integer), ("pin_evaluations", .integer), ("created_at", .integer),
                ("updated_at", .integer), ("expires_at", .integer), ("last_used_at", .integer),
            ]),
        Table(
            name: "app_logins",
            columns: [
                ("id", .text), ("code_hash", .text), ("flow_hash", .text), ("client_name", .text), ("status", .text),
                ("identity_id", .text), ("user_id", .text), ("challenge", .text), ("created_at", .integer),
                ("expires_at", .integer), ("requester_address", .text), ("requester_agent", .text),
            ]),
        Table(name: "revoked_grants", columns: [("grant_id", .text), ("revoked_at", .integer), ("expires_at", .integer)]),
        Table(name: "write_probe", columns: [("node", .text), ("written_at", .integer)]),
        Table(name: "dpop_proofs", columns: [("proof_hash", .text), ("expires_at", .integer)]),
        Table(
            name: "pushed_authorization_requests",
            columns: [("request_uri_hash", .text), ("client_id", .text), ("request", .text), ("expires_at", .integer)]),
        Table(
            name: "device_authorizations",
            columns: [
                ("id", .text), ("device_code_hash", .text), ("user_code_hash", .text), ("client_id", .text), ("scope", .text),
                ("status", .text), ("user_id", .text), ("auth_time", .integer), ("amr", .text), ("poll_interval", .integer),
                ("last_polled_at", .integer), ("created_at", .integer), ("expires_at", .integer),
            ]),
    ]

    public let source: any Database
    public let target: any Database

    public init(source: any Database, target: any Database) {
        self.source = source
        self.target = target
    }

    /// Copies every row in one target transaction, read in one snapshot of the source: a server may keep writing to it
    /// meanwhile (the copy is of the moment it began, every token with its user). Refuses a target that already holds
    /// users, clients or keys.
    /// - Returns: the number of rows copied per table, in copy order.
    public func copy() async throws -> [(table: String, rows: Int)] {
        let snapshot = try await source.snapshot { sql in
            var read: [(Table, [SendableRow])] = []
            for table in Self.tables {
                let columns = table.columns.map(\.name).joined(separator: ", ")
                let rows = try await sql.raw("SELECT \(unsafeRaw: columns) FROM \(unsafeRaw: table.name)").all()
                read.append(
                    (
                        table,
                        try rows.map { row in
                            SendableRow(
                                values: try table.columns.map { column -> any Encodable & Sendable in
                                    switch column.type {
                                    case .text: try row.decode(column: column.name, as: String?.self)
                                    case .integer: try row.decode(column: column.name, as: Int64?.self)
                                    }
                                })
                        }
                    ))
            }
            return read
        }
        let prepared = snapshot.map { table, rows in (table.name, table.columns.map(\.name), rows) }
        try await target.transaction { sql in
            for name in ["users", "clients", "signing_keys"] {
                if try await sql.raw("SELECT 1 AS present FROM \(unsafeRaw: name)").first() != nil {
                    throw DatabaseError.notEmpty(name)
                }
            }
            try await sql.raw("DELETE FROM attempt_counters").run()
            for (name, columns, rows) in prepared {
                for row in rows {
                    try await sql.insert(into: name).columns(columns).values(row.values).run()
                }
            }
        }
        return snapshot.map { ($0.0.name, $0.1.count) }
    }
}

/// One row's values, handed across the transaction's boundary.
private struct SendableRow: @unchecked Sendable {
    // Every value is a String?, or Int64?, both Sendable; the existential array is not known to be.
    let values: [any Encodable & Sendable]
}
