import Foundation
import GatehouseFoundation
import SQLKit

/// Authorization requests a client pushed ahead (RFC 9126), validated and kept until the browser brings their
/// `request_uri` to the authorization endpoint: once, before they expire, for the client that pushed them. Kept in the
/// database, so the push and the browser may reach different nodes; the reference is stored only as a digest.
package struct PushedAuthorizationRequestStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    /// What every reference starts with (RFC 9126 §2.2).
    package static let prefix = "urn:ietf:params:oauth:request_uri:"

    /// Keeps `request` for `lifetime` seconds; returns its `request_uri`.
    package func push(_ request: AuthorizationRequest, lifetime: Int64) async throws -> String {
        let reference = Self.prefix + SecureRandom.token()
        let encoded = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        try await database.transaction { sql in
            try await sql.raw(
                """
                INSERT INTO pushed_authorization_requests (request_uri_hash, client_id, request, expires_at)
                VALUES (\(bind: TokenDigest.hex(reference)), \(bind: request.clientID), \(bind: encoded), \(bind: clock.now() + lifetime))
                """
            ).run()
        }
        return reference
    }

    /// The request `requestURI` refers to, taken (it cannot be used again), when `clientID` pushed it and it has not
    /// expired; `nil` otherwise. The delete decides between two browsers bringing the same reference; another client
    /// naming it takes nothing.
    package func take(_ requestURI: String, clientID: String) async throws -> AuthorizationRequest? {
        guard requestURI.hasPrefix(Self.prefix), requestURI.utf8.count <= 256 else { return nil }
        let row = try await database.transaction { sql in
            try await sql.raw(
                """
                DELETE FROM pushed_authorization_requests
                WHERE request_uri_hash = \(bind: TokenDigest.hex(requestURI)) AND client_id = \(bind: clientID)
                RETURNING request, expires_at
                """
            ).first()
        }
        guard let row, try row.decode(column: "expires_at", as: Int64.self) > clock.now() else { return nil }
        return try JSONDecoder().decode(AuthorizationRequest.self, from: Data(try row.decode(column: "request", as: String.self).utf8))
    }

    package init(database: any Database, clock: UnixClock) {
        self.database = database
        self.clock = clock
    }
}

extension PushedAuthorizationRequestStore {
    /// A pushed request nothing can use once it has expired.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "pushed_authorization_requests", key: "request_uri_hash", condition: "expires_at <= \(bind: now)")
    }
}
