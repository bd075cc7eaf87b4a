import Crypto
import Foundation
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session's DPoP key and the provider's latest nonce: makes the proof for each request (RFC 9449 §4.2).
actor DPoPProofs {
    let key: any DPoPKey
    /// The provider's latest `DPoP-Nonce`, sent in every proof once it asked for one (§8).
    private(set) var nonce: String?

    init(key: any DPoPKey) {
        self.key = key
    }

    /// The session's proofs: a new key where the app asked for DPoP, none otherwise.
    static func make(for configuration: GatehouseConfiguration) throws(GatehouseError) -> DPoPProofs? {
        guard let provider = configuration.dpop else { return nil }
        do {
            return DPoPProofs(key: try provider.makeKey())
        } catch {
            throw .dpopKey(ErrorCause(error))
        }
    }

    /// A proof for `method` on `url` (its query and fragment left out), bound to `accessToken` when one is sent.
    func proof(method: String, url: URL, accessToken: String? = nil) throws(GatehouseError) -> String {
        do {
            return try DPoPProof.make(with: key, method: method, url: url, accessToken: accessToken, nonce: nonce)
        } catch {
            throw .dpopKey(ErrorCause(error))
        }
    }

    /// Remembers the nonce an answer carried; whether it is new (a refused request is then worth one retry).
    @discardableResult
    func remember(_ response: HTTPURLResponse) -> Bool {
        guard let fresh = response.value(forHTTPHeaderField: "DPoP-Nonce"), !fresh.isEmpty, fresh != nonce else { return false }
        nonce = fresh
        return true
    }
}

/// DPoP proofs (RFC 9449 §4.2), for requests a session does not make itself: a service calling an API with a bound
/// token it got by exchange or with client credentials.
public enum DPoPProof {
    /// A proof by `key` for `method` on `url` (its query and fragment left out), bound to `accessToken` (`ath`) when
    /// one is sent, carrying the server's `nonce` when it asked for one.
    public static func make(with key: any DPoPKey, method: String, url: URL, accessToken: String? = nil, nonce: String? = nil) throws -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        var claims: [String: Any] = [
            "jti": UUID().uuidString, "htm": method, "htu": components?.string ?? url.absoluteString, "iat": Int(Date().timeIntervalSince1970),
        ]
        if let accessToken { claims["ath"] = Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8)))) }
        if let nonce { claims["nonce"] = nonce }
        let jwk = try JSONSerialization.jsonObject(with: JSONEncoder().encode(key.publicKey))
        let header: [String: Any] = ["typ": "dpop+jwt", "alg": key.algorithm, "jwk": jwk]
        let input =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys))
        return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8)))
    }
}
