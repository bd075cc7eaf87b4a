import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import SQLKit

/// The whole check of a request's DPoP proof: its `DPoP` header (one at most), ``DPoPProofVerifier``, the server's
/// nonce when `dpop.require_nonce` is on, and single use — each proof's `jti` is recorded for its key until the proof
/// would be too old anyway, in the database, so a proof replayed to another node is refused too.
struct DPoPProofCheck: Sendable {
    /// Where each proof's `jti` is recorded.
    let database: any Database
    let clock: UnixClock
    /// The server's issuer: a proof's `htu` is the issuer and the request's path.
    let issuer: String
    /// The nonces proofs must carry, when `dpop.require_nonce` is on; `nil` when it is off.
    let nonces: DPoPNonces?

    static let header = HTTPField.Name("DPoP")!
    static let nonceHeader = HTTPField.Name("DPoP-Nonce")!

    /// The request's checked proof for `path` (and `accessToken`, on a resource request), or `nil` when it sends none.
    func proof(of request: Request, path: String, accessToken: String? = nil) async throws(DPoPError) -> DPoPProof? {
        let values = request.headers[values: Self.header]
        guard !values.isEmpty else { return nil }
        guard values.count == 1 else { throw .invalidProof("Send exactly one DPoP header.") }
        let verifier = DPoPProofVerifier(clock: clock)
        let proof = try verifier.verify(values[0], method: request.method.rawValue, uri: issuer + path, accessToken: accessToken)
        if let nonces, !nonces.accepts(proof.nonce) {
            throw .nonceRequired("The DPoP proof must carry the nonce in this response's DPoP-Nonce header.")
        }
        let first: Bool
        do {
            first = try await recordOnce(proof)
        } catch {
            throw .invalidProof("The DPoP proof could not be recorded; try again.")
        }
        guard first else { throw .invalidProof("This DPoP proof was used before; make a new one (a new jti) for every request.") }
        return proof
    }

    /// Records the proof's `jti` for its key; `false` when it was recorded before (a replay).
    private func recordOnce(_ proof: DPoPProof) async throws -> Bool {
        let digest = TokenDigest.hex(proof.thumbprint + "|" + proof.jti)
        // Kept past the proof's whole acceptable age, so the replay check outlives the iat check.
        let expiresAt = proof.issuedAt + DPoPProofVerifier.maximumAge + DPoPProofVerifier.futureLeeway + 1
        return try await database.autocommit { sql in
            try await sql.raw(
                """
                INSERT INTO dpop_proofs (proof_hash, expires_at) VALUES (\(bind: digest), \(bind: expiresAt))
                ON CONFLICT (proof_hash) DO NOTHING RETURNING proof_hash
                """
            ).first() != nil
        }
    }

    /// The error a refused proof is answered with at the token endpoint (RFC 9449 §5: a 400 with the JSON error),
    /// with a fresh nonce when nonces are on.
    func tokenEndpointError(_ error: DPoPError) -> OAuthError {
        var refusal =
            switch error {
            case .invalidProof(let reason): OAuthError(.invalidDPoPProof, reason)
            case .nonceRequired(let reason): OAuthError(.useDPoPNonce, reason)
            }
        if let nonces { refusal.dpopNonce = nonces.current }
        return refusal
    }
}

extension DPoPProofCheck {
    /// A proof's `jti` is remembered until the proof would be too old anyway.
    static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "dpop_proofs", key: "proof_hash", condition: "expires_at <= \(bind: now)")
    }
}
