import Crypto
import Foundation
import GatehouseProtocol

/// Checks the DPoP proof sent with a bound token (RFC 9449 §4.3, §7.1): signed by the key the token is bound to, for
/// this request's method and URL, for this token (`ath`), recent, and never seen before (its `jti` is remembered for
/// the proof's lifetime, on this instance of the API).
actor DPoPProofCheck {
    /// The algorithms proofs may use.
    static let algorithms: Set<String> = JSONWebSignature.algorithms

    private let lifetime: TimeInterval
    private let leeway: TimeInterval
    /// Proof ids seen, with when they may be forgotten.
    private var seen: [String: TimeInterval] = [:]
    /// At most this many ids are remembered; beyond it the oldest half goes (a proof older than its lifetime is refused anyway).
    private let capacity = 100_000

    init(lifetime: TimeInterval, leeway: TimeInterval) {
        self.lifetime = lifetime
        self.leeway = leeway
    }

    func check(_ proof: String?, method: String, url: URL, token: String, thumbprint: String, now: Date) throws(ResourceAccessError) {
        func invalid(_ description: String) -> ResourceAccessError { ResourceAccessError(.invalidDPoPProof, description, dpop: true) }
        guard let proof, let jws = CompactJWS(proof) else { throw invalid("Send a DPoP proof (the DPoP header) with the bound token.") }
        guard jws.header["typ"] as? String == "dpop+jwt", Self.algorithms.contains(jws.algorithm) else {
            throw invalid("The DPoP proof is not a dpop+jwt of an accepted algorithm.")
        }
        guard let jwkObject = jws.header["jwk"] as? [String: Any], jwkObject["d"] == nil,
            let jwkData = try? JSONSerialization.data(withJSONObject: jwkObject), let key = try? JSONDecoder().decode(JSONWebKey.self, from: jwkData)
        else { throw invalid("The DPoP proof carries no public key.") }
        guard (try? jws.isSigned(by: key)) == true else { throw invalid("The DPoP proof's signature does not verify.") }
        guard key.thumbprint == thumbprint else { throw invalid("The DPoP proof is made with another key than the token is bound to.") }
        let claims = jws.payload
        guard (claims["htm"] as? String)?.uppercased() == method.uppercased() else { throw invalid("The DPoP proof is for another method.") }
        guard let htu = claims["htu"] as? String, Self.sameTarget(htu, url) else { throw invalid("The DPoP proof is for another URL.") }
        let hash = Base64URL.encode(Data(SHA256.hash(data: Data(token.utf8))))
        guard let ath = claims["ath"] as? String, ConstantTime.equals(ath, hash) else { throw invalid("The DPoP proof is not for this token (ath).") }
        guard let issuedAt = (claims["iat"] as? NSNumber)?.doubleValue, abs(now.timeIntervalSince1970 - issuedAt) <= lifetime + leeway else {
            throw invalid("The DPoP proof is too old, or from the future.")
        }
        guard let id = claims["jti"] as? String, !id.isEmpty, id.utf8.count <= 256 else { throw invalid("The DPoP proof has no jti.") }
        forgetExpired(now: now.timeIntervalSince1970)
        guard seen[id] == nil else { throw invalid("The DPoP proof was used before.") }
        seen[id] = issuedAt + lifetime + leeway
    }

    private func forgetExpired(now: TimeInterval) {
        guard seen.count >= capacity else { return }
        seen = seen.filter { $0.value > now }
        if seen.count >= capacity {
            seen = Dictionary(uniqueKeysWithValues: seen.sorted { $0.value > $1.value }.prefix(capacity / 2).map { ($0.key, $0.value) })
        }
    }

    /// Whether `htu` names `url` (RFC 9449 §4.3: scheme and host compared without case, query and fragment left out).
    static func sameTarget(_ htu: String, _ url: URL) -> Bool {
        func normalized(_ components: URLComponents?) -> String? {
            guard let components, let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased() else { return nil }
            let defaultPort = scheme == "https" ? 443 : 80
            let port = components.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? ""
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            return "\(scheme)://\(host)\(port)\(path)"
        }
        guard let left = normalized(URLComponents(string: htu)), let right = normalized(URLComponents(url: url, resolvingAgainstBaseURL: false)) else {
            return false
        }
        return left == right
    }
}
