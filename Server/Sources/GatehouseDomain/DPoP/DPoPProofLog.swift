import GatehouseFoundation
import SQLKit

/// The DPoP proofs seen, so none is accepted twice: each proof's `jti` is recorded for its key, in the database, until
/// the proof would be too old anyway, so a proof replayed to another node is refused too.
package struct DPoPProofLog: Sendable {
    let database: any Database

    package init(database: any Database) {
        self.database = database
    }

    /// Records the proof's `jti` for its key; `false` when it was recorded before (a replay).
    package func recordOnce(_ proof: DPoPProof) async throws -> Bool {
        // Kept past the proof's whole acceptable age, so the replay check outlives the iat check.
        try await recordOnce(
            key: proof.thumbprint + "|" + proof.jti, until: proof.issuedAt + DPoPProofVerifier.maximumAge + DPoPProofVerifier.futureLeeway + 1)
    }

    /// Records `key` (a single-use JWT's issuer and `jti`: a DPoP proof's, a client assertion's) until `expiresAt`;
    /// `false` when it was recorded before (a replay).
    package func recordOnce(key: String, until expiresAt: Int64) async throws -> Bool {
        let digest = TokenDigest.hex(key)
        return try await database.autocommit { sql in
            try await sql.raw(
                """
                INSERT INTO dpop_proofs (proof_hash, expires_at) VALUES (\(bind: digest), \(bind: expiresAt))
                ON CONFLICT (proof_hash) DO NOTHING RETURNING proof_hash
                """
            ).first() != nil
        }
    }

    /// A proof's `jti` is remembered until the proof would be too old anyway.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "dpop_proofs", key: "proof_hash", condition: "expires_at <= \(bind: now)")
    }
}
