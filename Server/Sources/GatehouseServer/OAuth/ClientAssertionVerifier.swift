import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Checks the assertion a client authenticates with instead of a secret (`private_key_jwt`, RFC 7523 §3, OpenID
/// Connect Core §9): a JWT signed by one of the client's keys (never `none` nor a MAC), issued by the client about
/// itself (`iss` = `sub` = its id), for this server (`aud`: the issuer or the endpoint called), short-lived, and used
/// once (its `jti` recorded until it expires, on every node).
struct ClientAssertionVerifier: Sendable {
    let clients: ClientStore
    let keys: ClientKeySets
    let replays: DPoPProofLog
    let issuer: String
    let clock: UnixClock

    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The algorithms assertions may be signed with.
    static let algorithms = ["ES256", "EdDSA", "PS256", "RS256"]
    /// The longest an assertion may still be valid when it arrives: it is meant for this one request.
    static let maximumLifetime: Int64 = 600

    /// `credentials` with their assertion verified for a request to `path`; unchanged when they carry none.
    func verified(_ credentials: ClientAuthenticator.Credentials, path: String) async throws -> ClientAuthenticator.Credentials {
        guard let assertion = credentials.assertion else { return credentials }
        let failed = OAuthError.invalidClient("Client authentication failed.")
        guard let jws = CompactJWS(assertion), Self.algorithms.contains(jws.algorithm), let client = try await clients.find(id: credentials.clientID),
            client.usesKeys
        else { throw failed }
        let key: JSONWebKey?
        do {
            key = try await keys.key(of: client, id: jws.header["kid"] as? String, algorithm: jws.algorithm)
        } catch let refusal as GuardedFetch.Refusal {
            throw OAuthError.invalidClient("The client's keys could not be read: \(refusal.description)")
        }
        guard let key, (try? jws.isSigned(by: key)) == true else { throw failed }
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
}
