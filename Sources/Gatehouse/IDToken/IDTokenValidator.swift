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
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            throw IDTokenValidationError.malformed("a JWS has three parts")
        }
        guard let jws = CompactJWS(token) else { throw IDTokenValidationError.malformed("header, payload or signature is not base64url JSON") }
        let algorithm = jws.algorithm
        guard allowedAlgorithms.contains(algorithm) else { throw IDTokenValidationError.algorithmNotAllowed(algorithm) }
        let kid = jws.header["kid"] as? String
        guard let key = try await keys.signingKey(id: kid, algorithm: algorithm) else { throw IDTokenValidationError.unknownKey(kid) }
        guard try Self.verify(signature: jws.signature, of: jws.signingInput, with: key, algorithm: algorithm) else {
            throw IDTokenValidationError.badSignature
        }
        let payload = jws.payload

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
