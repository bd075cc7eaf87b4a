import Crypto
import CryptoExtras
import Foundation
import GatehouseProtocol

/// Validates ID tokens as OpenID Connect Core §3.1.3.7 requires: the signature with a key from the
/// provider's JWKS and an algorithm from an allow-list, then `iss`, `aud` (and `azp`), `exp`, `iat`, `nonce`.
public struct IDTokenValidator: Sendable {
    /// Algorithms Gatehouse signs with. `none` and HMAC algorithms are never accepted.
    public static let supportedAlgorithms: Set<String> = ["RS256", "ES256"]

    /// The issuer the token must name exactly (`iss`).
    public let issuer: String
    /// The client id the token's audience must contain.
    public let clientID: String
    /// Where the provider's signing keys come from.
    public let keys: any KeySetSource
    /// The signature algorithms accepted; `none` and HMAC never are.
    public let allowedAlgorithms: Set<String>
    /// Tolerated clock difference between device and server.
    public let leeway: TimeInterval

    /// A validator for tokens from `issuer` to `clientID`, signed by a key from `keys`.
    public init(issuer: String, clientID: String, keys: any KeySetSource, allowedAlgorithms: Set<String> = supportedAlgorithms, leeway: TimeInterval = 60) {
        self.issuer = issuer
        self.clientID = clientID
        self.keys = keys
        self.allowedAlgorithms = allowedAlgorithms.intersection(Self.supportedAlgorithms)
        self.leeway = leeway
    }

    /// Validates `token`; `nonce` is the value sent in the authorization request (nil after a refresh). With `maxAge`
    /// (the request's `max_age`, in seconds) the token must say when the user signed in (`auth_time`), no longer
    /// ago than that (OpenID Connect Core §3.1.3.7, step 13).
    public func validate(_ token: String, nonce: String?, maxAge: Int? = nil, now: Date = Date()) async throws -> IDTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw IDTokenValidationError.malformed("a JWS has three parts") }
        guard let headerData = Base64URL.decode(String(parts[0])),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let payloadData = Base64URL.decode(String(parts[1])),
            let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any],
            let signature = Base64URL.decode(String(parts[2]))
        else { throw IDTokenValidationError.malformed("header, payload or signature is not base64url JSON") }

        let algorithm = header["alg"] as? String ?? "none"
        guard allowedAlgorithms.contains(algorithm) else { throw IDTokenValidationError.algorithmNotAllowed(algorithm) }
        let kid = header["kid"] as? String
        let key = try await key(for: kid, algorithm: algorithm)
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        guard try Self.verify(signature: signature, of: signingInput, with: key, algorithm: algorithm) else {
            throw IDTokenValidationError.badSignature
        }

        let claims = try IDTokenClaims(json: payload)
        guard claims.issuer == issuer else { throw IDTokenValidationError.wrongIssuer(expected: issuer, found: claims.issuer) }
        guard claims.audience.contains(clientID) else { throw IDTokenValidationError.wrongAudience(clientID) }
        if claims.audience.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientID else { throw IDTokenValidationError.wrongAudience(clientID) }
        }
        guard claims.expiresAt.timeIntervalSince(now) > -leeway else { throw IDTokenValidationError.expired }
        guard claims.issuedAt.timeIntervalSince(now) < leeway else { throw IDTokenValidationError.issuedInTheFuture }
        if let nonce {
            guard let received = claims.nonce, ConstantTime.equals(received, nonce) else { throw IDTokenValidationError.nonceMismatch }
        }
        if let maxAge {
            guard let authTime = claims.authTime, now.timeIntervalSince(authTime) <= Double(maxAge) + leeway else {
                throw IDTokenValidationError.authenticationTooOld
            }
        }
        return claims
    }

    private func key(for kid: String?, algorithm: String) async throws -> JSONWebKey {
        func find(_ set: JSONWebKeySet) -> JSONWebKey? {
            // `alg` and `use` are optional in a JWK (RFC 7517 §4): a key that names them must name these.
            set.keys.first { ($0.keyID == kid || kid == nil) && ($0.algorithm ?? algorithm) == algorithm && ($0.use ?? "sig") == "sig" }
        }
        if let key = find(try await keys.keySet(refresh: false)) { return key }
        // An unknown kid usually means the provider rotated its keys since they were fetched.
        if let key = find(try await keys.keySet(refresh: true)) { return key }
        throw IDTokenValidationError.unknownKey(kid)
    }

    static func verify(signature: Data, of input: Data, with key: JSONWebKey, algorithm: String) throws -> Bool {
        do {
            return try JSONWebSignature.isValid(signature, of: input, with: key, algorithm: algorithm)
        } catch .algorithmNotSupported(let algorithm) {
            throw IDTokenValidationError.algorithmNotAllowed(algorithm)
        } catch .unusableKey(let reason) {
            throw IDTokenValidationError.malformed("\(reason) in the JWKS")
        }
    }
}
