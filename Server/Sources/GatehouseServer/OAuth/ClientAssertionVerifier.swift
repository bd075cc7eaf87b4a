import Crypto
import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Checks the assertion a client authenticates with instead of sending a secret (RFC 7523 §3, OpenID Connect Core §9):
/// a JWT signed by one of the client's keys (`private_key_jwt`) or MACed with its secret (`client_secret_jwt`), never
/// `none`, issued by the client about itself (`iss` = `sub` = its id), for this server (`aud`: the issuer, or the
/// endpoint called, as older clients send), short-lived, and used once (its `jti` recorded until it expires, on
/// every node).
struct ClientAssertionVerifier: Sendable {
    let clients: ClientStore
    let keys: ClientKeySets
    let replays: DPoPProofLog
    /// Opens the secrets of `client_secret_jwt` clients.
    let secrets: SecretBox
    let issuer: String
    let clock: UnixClock

    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The algorithms `private_key_jwt` assertions may be signed with.
    static let algorithms = ["ES256", "EdDSA", "PS256", "RS256"]
    /// The algorithms `client_secret_jwt` assertions may be MACed with.
    static let macAlgorithms = ["HS256", "HS384", "HS512"]
    /// The longest an assertion may still be valid when it arrives: an hour, the default of common client libraries
    /// (authlib's); it is good for one request anyway, its `jti` remembered until it expires.
    static let maximumLifetime: Int64 = 3600

    /// `credentials` with their assertion verified for a request to `path`; unchanged when they carry none.
    func verified(_ credentials: ClientAuthenticator.Credentials, path: String) async throws -> ClientAuthenticator.Credentials {
        guard let assertion = credentials.assertion else { return credentials }
        let failed = OAuthError.invalidClient("Client authentication failed.")
        guard let jws = CompactJWS(assertion), let client = try await clients.find(id: credentials.clientID),
            client.allowsSigningAlgorithm(jws.algorithm)
        else { throw failed }
        switch client.authenticationMethod {
        case .privateKeyJWT:
            guard Self.algorithms.contains(jws.algorithm) else { throw failed }
            let key: JSONWebKey?
            do {
                key = try await keys.key(of: client, id: jws.header["kid"] as? String, algorithm: jws.algorithm)
            } catch let refusal as GuardedFetch.Refusal {
                throw OAuthError.invalidClient("The client's keys could not be read: \(refusal.description)")
            }
            guard let key, (try? jws.isSigned(by: key)) == true else { throw failed }
        case .clientSecretJWT:
            guard let sealed = client.sealedSecret, let secret = try? secrets.open(sealed), Self.isMACed(jws, with: secret) else { throw failed }
        case .none, .clientSecretBasic, .clientSecretPost:
            throw failed
        }
        let claims = jws.payload
        let now = clock.now()
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard claims["iss"] as? String == client.id, claims["sub"] as? String == client.id,
            !Set(audiences).isDisjoint(with: [issuer, issuer + "/", issuer + "/token", issuer + path])
        else { throw OAuthError.invalidClient("The client assertion must be issued by the client about itself, for \(issuer).") }
        guard let expiry = (claims["exp"] as? NSNumber)?.int64Value, expiry > now, expiry - now <= Self.maximumLifetime else {
            throw OAuthError.invalidClient("The client assertion has expired, or lives longer than \(Self.maximumLifetime) seconds.")
        }
        if let issuedAt = (claims["iat"] as? NSNumber)?.int64Value, issuedAt > now + 60 { throw failed }
        // Not valid yet (RFC 7523 §3, item 6), beyond a minute's difference between the clocks.
        if let notBefore = claims["nbf"] {
            guard let value = (notBefore as? NSNumber)?.int64Value, value <= now + 60 else {
                throw OAuthError.invalidClient("The client assertion is not valid yet (nbf is in the future).")
            }
        }
        guard let id = claims["jti"] as? String, !id.isEmpty, id.utf8.count <= 256 else {
            throw OAuthError.invalidClient("The client assertion has no jti.")
        }
        guard try await replays.recordOnce(key: "client_assertion|" + client.id + "|" + id, until: expiry + 60) else {
            throw OAuthError.invalidClient("The client assertion was used before.")
        }
        var checked = credentials
        checked.assertionVerified = true
        return checked
    }

    /// Whether `jws` carries the HMAC of its signing input under `secret` with its HS256/HS384/HS512 algorithm,
    /// compared in constant time.
    static func isMACed(_ jws: CompactJWS, with secret: Data) -> Bool {
        let key = SymmetricKey(data: secret)
        let expected: Data
        switch jws.algorithm {
        case "HS256": expected = Data(HMAC<SHA256>.authenticationCode(for: jws.signingInput, using: key))
        case "HS384": expected = Data(HMAC<SHA384>.authenticationCode(for: jws.signingInput, using: key))
        case "HS512": expected = Data(HMAC<SHA512>.authenticationCode(for: jws.signingInput, using: key))
        default: return false
        }
        return ConstantTime.equals(Array(expected), Array(jws.signature))
    }
}
