import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol

/// A DPoP proof (RFC 9449 §4) whose signature, type, algorithm, key, method, URI, age and access-token hash were
/// checked by ``DPoPProofVerifier``; single use by ``DPoPProofLog``, and the nonce by the server's proof check.
package struct DPoPProof: Sendable, Equatable {
    /// The SHA-256 thumbprint of the proof's public key (RFC 7638): what bound tokens carry as `cnf.jkt`.
    package var thumbprint: String
    package var jti: String
    package var issuedAt: Int64
    package var nonce: String?
}

/// Why a proof was refused.
package enum DPoPError: Error, Equatable, Sendable {
    /// `invalid_dpop_proof` (RFC 9449 §5, §7.1).
    case invalidProof(String)
    /// `use_dpop_nonce` (§8): the proof must carry the server's current nonce.
    case nonceRequired(String)
}

/// The checks of RFC 9449 §4.3 that need no storage: one well-formed JWT with `typ: dpop+jwt`, an allowed asymmetric
/// algorithm, a public key only, a valid signature, `htm` and `htu` of this request, a fresh `iat`, a `jti`, and
/// `ath` when an access token is presented.
package struct DPoPProofVerifier: Sendable {
    package let clock: UnixClock

    /// The algorithms a proof may be signed with, as discovery lists them.
    package static let algorithms = JSONWebSignature.algorithms.sorted()
    /// A proof older than this (by its `iat`) is refused; so is one more than ``futureLeeway`` ahead.
    package static let maximumAge: Int64 = 60
    package static let futureLeeway: Int64 = 5
    /// Longer proofs are refused unread.
    package static let maximumLength = 8192
    /// Members a JWK has only when it holds a private or symmetric key.
    package static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Checks `proof` for a request of `method` to `uri` (scheme, host, port and path; no query), carrying
    /// `accessToken` when it is a resource request.
    package func verify(_ proof: String, method: String, uri: String, accessToken: String?) throws(DPoPError) -> DPoPProof {
        guard proof.utf8.count <= Self.maximumLength else { throw .invalidProof("The DPoP proof is too long.") }
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])), let payloadData = Base64URL.decode(String(parts[1])),
            let signature = Base64URL.decode(String(parts[2])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any]
        else { throw .invalidProof("The DPoP proof is not a signed JWT (three base64url parts of JSON).") }
        guard header["typ"] as? String == "dpop+jwt" else { throw .invalidProof("The DPoP proof's typ must be dpop+jwt.") }
        guard let algorithm = header["alg"] as? String, Self.algorithms.contains(algorithm) else {
            throw .invalidProof("The DPoP proof's alg must be one of \(Self.algorithms.joined(separator: ", ")).")
        }
        guard let jwk = header["jwk"] as? [String: Any] else { throw .invalidProof("The DPoP proof's header has no jwk.") }
        if jwk.keys.contains(where: Self.privateMembers.contains) {
            throw .invalidProof("The DPoP proof's jwk holds a private or symmetric key; send the public key only.")
        }
        // Read from the parsed header directly: encoding it again for a decoder cost more than the signature check.
        guard let keyType = jwk["kty"] as? String else { throw .invalidProof("The DPoP proof's jwk has no kty.") }
        let key = JSONWebKey(
            keyType: keyType, keyID: nil, use: nil, algorithm: nil, modulus: jwk["n"] as? String, exponent: jwk["e"] as? String,
            curve: jwk["crv"] as? String, x: jwk["x"] as? String, y: jwk["y"] as? String)
        guard let thumbprint = key.thumbprint else { throw .invalidProof("The DPoP proof's jwk is not an RSA, EC or OKP public key.") }
        let valid: Bool
        do {
            valid = try JSONWebSignature.isValid(signature, of: Data((parts[0] + "." + parts[1]).utf8), with: key, algorithm: algorithm)
        } catch {
            throw .invalidProof("The DPoP proof's jwk does not fit its alg \(algorithm).")
        }
        guard valid else { throw .invalidProof("The DPoP proof's signature does not verify with its jwk.") }

        guard let jti = claims["jti"] as? String, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw .invalidProof("The DPoP proof needs a jti (a unique id of at most 256 bytes).")
        }
        guard claims["htm"] as? String == method else { throw .invalidProof("The DPoP proof's htm must be \(method).") }
        guard let htu = claims["htu"] as? String, Self.normalized(htu) == Self.normalized(uri) else {
            throw .invalidProof("The DPoP proof's htu must be \(uri).")
        }
        guard let issuedAt = (claims["iat"] as? NSNumber)?.int64Value else { throw .invalidProof("The DPoP proof needs an iat.") }
        let now = clock.now()
        guard issuedAt >= now - Self.maximumAge, issuedAt <= now + Self.futureLeeway else {
            throw .invalidProof("The DPoP proof's iat is not within \(Self.maximumAge) seconds of the server's time; make a new proof.")
        }
        if let accessToken {
            let expected = Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))))
            guard let ath = claims["ath"] as? String, ConstantTime.equals(ath, expected) else {
                throw .invalidProof("The DPoP proof's ath must be the SHA-256 hash of the access token, base64url.")
            }
        }
        return DPoPProof(thumbprint: thumbprint, jti: jti, issuedAt: issuedAt, nonce: claims["nonce"] as? String)
    }

    /// `uri` as compared (RFC 9449 §4.3, RFC 3986 §6): scheme and host in lower case, no default port, no query or
    /// fragment, an empty path as `/`.
    package static func normalized(_ uri: String) -> String? {
        guard var components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased()
        else { return nil }
        components.scheme = scheme
        components.host = host
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) { components.port = nil }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }

    package init(clock: UnixClock) {
        self.clock = clock
    }
}
