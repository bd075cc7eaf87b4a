import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird

/// The whole check of a request's DPoP proof: its `DPoP` header (one at most), ``DPoPProofVerifier``, the server's
/// nonce when `dpop.require_nonce` is on, and single use (``DPoPProofLog``).
struct DPoPProofCheck: Sendable {
    /// Where each proof's `jti` is recorded, so none is accepted twice.
    let replays: DPoPProofLog
    let clock: UnixClock
    /// The server's issuer: a proof's `htu` is the issuer and the request's path.
    let issuer: String
    /// The nonces proofs must carry, when `dpop.require_nonce` is on; `nil` when it is off.
    let nonces: DPoPNonces?

    /// The request's checked proof for `path` (and `accessToken`, on a resource request), or `nil` when it sends none.
    func proof(of request: Request, path: String, accessToken: String? = nil) async throws(DPoPError) -> DPoPProof? {
        let values = request.headers[values: .dpop]
        guard !values.isEmpty else { return nil }
        guard values.count == 1 else { throw .invalidProof("Send exactly one DPoP header.") }
        let verifier = DPoPProofVerifier(clock: clock)
        let proof = try verifier.verify(values[0], method: request.method.rawValue, uri: issuer + path, accessToken: accessToken)
        if let nonces, !nonces.accepts(proof.nonce) {
            throw .nonceRequired("The DPoP proof must carry the nonce in this response's DPoP-Nonce header.")
        }
        let first: Bool
        do {
            first = try await replays.recordOnce(proof)
        } catch {
            throw .invalidProof("The DPoP proof could not be recorded; try again.")
        }
        guard first else { throw .invalidProof("This DPoP proof was used before; make a new one (a new jti) for every request.") }
        return proof
    }

    /// A protected resource's refusal of a token presented with `scheme`: with DPoP, the challenge names the DPoP scheme
    /// and carries a fresh nonce when nonces are on (RFC 9449 §7.1, §8).
    func resourceRefusal(_ code: OAuthError.Code, _ description: String, scheme: PresentedAccessToken.Scheme?) -> OAuthError {
        var error = OAuthError(code, description)
        error.dpopChallenge = scheme == .dpop
        if scheme == .dpop, let nonces { error.dpopNonce = nonces.current }
        return error
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
