import GatehouseFoundation
import SQLKit

/// Revoked token families, remembered by grant until every token they could still hold has expired.
///
/// Revoking a family records its grant once instead of marking each of its tokens, and every token lookup
/// checks that record. So the token tables need no index on `grant_id`: each token issued had put an entry on a
/// random page of two such indexes, the largest part of a refresh's write. The record outlives the family:
/// lifetimes are capped (``TokenLifetimes/maximumAccessToken``, ``TokenLifetimes/maximumRefreshToken``) and no
/// family issues a token once revoked.
package enum GrantRevocations {
    /// Which of a family's tokens can still be in use when it is revoked, so how long the record must last.
    package enum Extent: Sendable {
        /// The newest refresh token may be any of them (a replayed code or refresh token, an old refresh token
        /// revoked): remembered for the longest a refresh token may live.
        case everyToken
        /// The newest refresh token was itself revoked: only access tokens remain, remembered for the longest
        /// an access token may live.
        case accessTokens

        package var retention: Int64 {
            switch self {
            case .everyToken: TokenLifetimes.maximumRefreshToken
            case .accessTokens: TokenLifetimes.maximumAccessToken
            }
        }
    }

    /// The condition, on a token table or its alias, that the token's family was not revoked (tokens without a
    /// grant, a client's own, pass).
    package static func familyIsActive(_ table: String) -> SQLQueryString {
        "NOT EXISTS (SELECT 1 FROM revoked_grants WHERE revoked_grants.grant_id = \(unsafeRaw: table).grant_id)"
    }

    /// Records `grantID` as revoked, for at least as long as `extent` needs (the housekeeping sweep forgets it then).
    package static func revoke(_ grantID: String, extent: Extent, at now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO revoked_grants (grant_id, revoked_at, expires_at) VALUES (\(bind: grantID), \(bind: now), \(bind: now + extent.retention))
            ON CONFLICT (grant_id) DO UPDATE SET expires_at = excluded.expires_at WHERE revoked_grants.expires_at < excluded.expires_at
            """
        ).run()
    }
}

extension GrantRevocations {
    /// A revocation is kept until no token of its family can still be valid.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "revoked_grants", key: "grant_id", condition: "expires_at <= \(bind: now)")
    }
}
