import GatehouseDomain
import GatehouseProtocol
import Hummingbird

/// An access token as a request to a protected resource presents it — `Authorization: Bearer` (RFC 6750 §2.1) or
/// `Authorization: DPoP` (RFC 9449 §7.1) — and the one check every protected endpoint (userinfo, the admin API)
/// runs on it against the token's binding: a token bound to a key (`cnf.jkt`) is accepted only as `DPoP` with a proof
/// signed by that key for this request, so a stolen bound token is useless alone; an unbound token only as `Bearer`.
struct PresentedAccessToken: Sendable {
    enum Scheme: Sendable, Equatable {
        case bearer, dpop
    }

    var token: String
    var scheme: Scheme

    /// Why a presentation is refused; each endpoint answers it in its own error format.
    enum Refusal: Error, Sendable, Equatable {
        /// The `Authorization` header names another scheme, or no credentials.
        case malformedHeader
        /// The token is bound to a DPoP key but came as a bearer token (RFC 9449 §7.2).
        case boundTokenAsBearer
        /// The token is a bearer token but came with the DPoP scheme.
        case unboundTokenAsDPoP
        /// The proof is missing, invalid, used before, or signed by another key than the token's.
        case invalidProof(String)
        /// The proof must carry the server's current nonce (RFC 9449 §8).
        case nonceRequired(String)

        /// What the refusal says, for an error body.
        var description: String {
            switch self {
            case .malformedHeader: "Send the access token as Authorization: Bearer <token> (or DPoP <token> with a proof)."
            case .boundTokenAsBearer: "This access token is bound to a DPoP key: send it as Authorization: DPoP with a proof."
            case .unboundTokenAsDPoP: "This access token is not bound to a DPoP key: send it as Authorization: Bearer."
            case .invalidProof(let reason), .nonceRequired(let reason): reason
            }
        }
    }

    /// The token the request's `Authorization` header presents; `nil` without the header.
    static func of(_ request: Request) throws(Refusal) -> PresentedAccessToken? {
        guard let authorization = request.headers[.authorization] else { return nil }
        if let credentials = AuthorizationCredentials.of("DPoP", in: authorization), !credentials.isEmpty {
            return PresentedAccessToken(token: credentials, scheme: .dpop)
        }
        if let credentials = AuthorizationCredentials.of("Bearer", in: authorization), !credentials.isEmpty {
            return PresentedAccessToken(token: credentials, scheme: .bearer)
        }
        throw .malformedHeader
    }

    /// Checks that the token, bound to `jkt` (or to nothing), was presented as its binding requires, with a proof of
    /// `request` to `path` by that key. Returns the nonce to answer with in `DPoP-Nonce` when nonces are on.
    func checkBinding(to jkt: String?, request: Request, path: String, proofs: DPoPProofCheck) async throws(Refusal) -> String? {
        switch (scheme, jkt) {
        case (.bearer, nil):
            return nil
        case (.bearer, .some):
            throw .boundTokenAsBearer
        case (.dpop, nil):
            throw .unboundTokenAsDPoP
        case (.dpop, .some(let jkt)):
            let proof: DPoPProof?
            do throws(DPoPError) {
                proof = try await proofs.proof(of: request, path: path, accessToken: token)
            } catch {
                switch error {
                case .invalidProof(let reason): throw .invalidProof(reason)
                case .nonceRequired(let reason): throw .nonceRequired(reason)
                }
            }
            guard let proof else { throw .invalidProof("A DPoP-bound access token needs a DPoP proof header.") }
            guard ConstantTime.equals(proof.thumbprint, jkt) else {
                throw .invalidProof("The DPoP proof is signed by another key than the one the access token is bound to.")
            }
            return proofs.nonces?.current
        }
    }
}

extension PresentedAccessToken.Refusal {
    /// The refusal as an OAuth resource error (RFC 6750 §3, RFC 9449 §7.1): 401 with a challenge naming the DPoP scheme
    /// whenever DPoP is involved, and a fresh nonce when nonces are on.
    func oauthError(presentedWithDPoP: Bool, nonce: @autoclosure () -> String?) -> OAuthError {
        var error =
            switch self {
            case .malformedHeader, .boundTokenAsBearer, .unboundTokenAsDPoP: OAuthError(.invalidToken, description)
            case .invalidProof: OAuthError(.invalidDPoPProof, description)
            case .nonceRequired: OAuthError(.useDPoPNonce, description)
            }
        error.dpopChallenge = presentedWithDPoP || self != .malformedHeader
        if error.dpopChallenge { error.dpopNonce = nonce() }
        return error
    }
}
