import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// The registrations of clients that registered themselves (RFC 7591): the client's record, the digest of its
/// registration access token (RFC 7592) and the metadata as registered, echoed back when the client reads it.
package struct ClientRegistrationStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    package init(database: any Database, clock: UnixClock) {
        self.database = database
        self.clock = clock
    }

    /// A client's registration.
    package struct Registration: Sendable {
        package var client: Client
        /// SHA-256 of the registration access token, hex.
        package var tokenHash: String
        package var metadata: ClientMetadata
        /// Whether it registered without an initial access token: its changes keep to the open registration's rules.
        package var open: Bool
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Stores `client` with its registration, inside a transaction already open.
    package func register(_ client: Client, token: String, metadata: ClientMetadata, open: Bool, in sql: any SQLDatabase) async throws {
        try await ClientStore.insert(client, in: sql)
        try await sql.raw(
            """
            INSERT INTO client_registrations (client_id, token_hash, metadata, open, created_at, updated_at)
            VALUES (\(bind: client.id), \(bind: TokenDigest.hex(token)), \(bind: String(decoding: try Self.encoder.encode(metadata), as: UTF8.self)),
                    \(bind: open ? 1 : 0), \(bind: client.createdAt), \(bind: client.createdAt))
            """
        ).run()
    }

    /// The registration of `clientID` when `token` is its registration access token; `nil` otherwise, with the same
    /// work either way (the digests are compared in constant time).
    package func find(_ clientID: String, token: String) async throws -> Registration? {
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT c.*, r.token_hash AS registration_token_hash, r.metadata AS registration_metadata, r.open AS registration_open
                FROM clients c JOIN client_registrations r ON r.client_id = c.id WHERE c.id = \(bind: clientID)
                """
            ).first()
        }
        let presented = TokenDigest.hex(token)
        guard let row else {
            _ = ConstantTime.equals(presented, presented)
            return nil
        }
        let stored = try row.decode(column: "registration_token_hash", as: String.self)
        guard ConstantTime.equals(presented, stored) else { return nil }
        return Registration(
            client: try ClientStore.decode(row), tokenHash: stored,
            metadata: try JSONDecoder().decode(ClientMetadata.self, from: Data(try row.decode(column: "registration_metadata", as: String.self).utf8)),
            open: try row.decode(column: "registration_open", as: Int.self) != 0)
    }

    /// Replaces the registration's metadata (RFC 7592 §2.2) and the client's record with `changed`, in one
    /// transaction: tokens carrying a scope it no longer has are revoked (``ClientStore/update(_:to:)``).
    package func update(_ registration: Registration, to changed: Client, metadata: ClientMetadata) async throws -> Bool {
        let clients = ClientStore(database: database, clock: clock)
        return try await database.transaction { [clock] sql in
            guard try await clients.update(registration.client, to: changed) != nil else { return false }
            try await sql.raw(
                """
                UPDATE client_registrations SET metadata = \(bind: String(decoding: try Self.encoder.encode(metadata), as: UTF8.self)),
                    updated_at = \(bind: clock.now())
                WHERE client_id = \(bind: registration.client.id)
                """
            ).run()
            return true
        }
    }

    /// Openly registered clients that never got a token are removed once their time is up (their registration goes
    /// with them); so are the cached copies of metadata documents not fetched again for a month (a client that comes
    /// back has its document fetched anew), so that documents from many URLs do not pile up.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(
            table: "clients", key: "id",
            condition: "(unused_expires_at <= \(bind: now) OR document_expires_at <= \(bind: now - 30 * RetentionRule.day))")
    }
}
