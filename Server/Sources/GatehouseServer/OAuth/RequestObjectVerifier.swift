import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Authorization requests a client signed (JWT-Secured Authorization Requests, RFC 9101; OpenID Connect Core §6.1):
/// the `request` parameter at the authorization and PAR endpoints holds a JWT signed with one of the client's keys
/// (`private_key_jwt` clients) or MACed with its secret (`client_secret_jwt` clients), never `none`, issued by the
/// client (`iss`) for this server (`aud`), expiring within the hour. Its claims are the request's parameters; the
/// request's own, but `client_id`, are not used (RFC 9101 §5). A client that must sign (its
/// `require_signed_request_object`, or the server's) has every other request refused.
struct RequestObjectVerifier: Sendable {
    let keys: ClientKeySets
    /// Opens the secrets of `client_secret_jwt` clients.
    let secrets: SecretBox
    let issuer: String
    let clock: UnixClock
    /// Whether every client must sign its requests (`require_signed_request_object`).
    let requireSigned: Bool

    /// The algorithms request objects may be signed with: a client's keys', or its secret's.
    static let algorithms = ClientAssertionVerifier.algorithms + ClientAssertionVerifier.macAlgorithms
    /// The longest a request object may live (FAPI 2.0 Message Signing's limit).
    static let maximumLifetime: Int64 = 3600
    /// Claims about the request object itself, not parameters of the request.
    private static let envelope: Set<String> = ["iss", "aud", "exp", "nbf", "iat", "jti", "client_id"]

    /// Whether `client` must send its authorization requests signed.
    func mustSign(_ client: Client) -> Bool { requireSigned || client.requiresSignedRequestObject }

    /// The parameters of the authorization request `parameters` makes for `client`: its request object's (with
    /// `client_id`) when it carries one, its own otherwise. `invalid_request_object` when the object is unsigned,
    /// unverifiable or says what it may not; `invalid_request` when the client must sign and did not.
    func parameters(of parameters: FormParameters, client: Client) async throws(OAuthError) -> FormParameters {
        guard let object = parameters["request"] else {
            if mustSign(client) {
                throw OAuthError.invalidRequest("\(client.id) must send its authorization requests as signed request objects (request).")
            }
            return parameters
        }
        let claims = try await verified(object, client: client)
        var pairs: [(String, String?)] = [("client_id", client.id)]
        for (name, value) in claims.sorted(by: { $0.key < $1.key }) where !Self.envelope.contains(name) {
            if name == "request" || name == "request_uri" {
                throw OAuthError(.invalidRequestObject, "A request object cannot hold another request or request_uri.")
            }
            switch value {
            case let text as String: pairs.append((name, text))
            case let number as NSNumber where JSONBoolean.isBoolean(number): pairs.append((name, number.boolValue ? "true" : "false"))
            case let number as NSNumber: pairs.append((name, number.stringValue))
            // Several resources (RFC 8707) come as an array of identifiers.
            case let list as [String] where FormParameters.repeatable.contains(name): pairs.append(contentsOf: list.map { (name, $0) })
            case is NSNull: continue
            default:
                // An object (claims) is the JSON text the parameter would have held.
                guard JSONSerialization.isValidJSONObject(value), let data = try? JSONSerialization.data(withJSONObject: value) else {
                    throw OAuthError(.invalidRequestObject, "The request object's \(name.prefix(40)) is not a parameter value.")
                }
                pairs.append((name, String(decoding: data, as: UTF8.self)))
            }
        }
        return FormParameters(pairs)
    }

    /// The claims of `object` once its signature and envelope are checked.
    private func verified(_ object: String, client: Client) async throws(OAuthError) -> [String: Any] {
        if object.split(separator: ".", omittingEmptySubsequences: false).count == 5 {
            throw OAuthError(.invalidRequestObject, "Encrypted request objects are not supported; sign it (JWS) without encrypting it.")
        }
        guard let jws = CompactJWS(object) else { throw OAuthError(.invalidRequestObject, "The request object is not a JWT.") }
        guard Self.algorithms.contains(jws.algorithm), client.allowsSigningAlgorithm(jws.algorithm) else {
            throw OAuthError(
                .invalidRequestObject,
                "The request object must be signed (\(Self.algorithms.joined(separator: ", "))); \(jws.algorithm.prefix(20)) is not accepted.")
        }
        let signed: Bool
        switch (client.authenticationMethod, jws.algorithm.hasPrefix("HS")) {
        case (.privateKeyJWT, false):
            do {
                let key = try await keys.key(of: client, id: jws.header["kid"] as? String, algorithm: jws.algorithm)
                signed = key.map { (try? jws.isSigned(by: $0)) == true } ?? false
            } catch let refusal as GuardedFetch.Refusal {
                throw OAuthError(.invalidRequestObject, "The client's keys could not be read: \(refusal.description)")
            } catch {
                throw OAuthError(.invalidRequestObject, "The client's keys could not be read.")
            }
        case (.clientSecretJWT, true):
            signed = client.sealedSecret.flatMap { try? secrets.open($0) }.map { ClientAssertionVerifier.isMACed(jws, with: $0) } ?? false
        default:
            throw OAuthError(
                .invalidRequestObject,
                "\(client.id) cannot sign request objects with \(jws.algorithm.prefix(20)): register its public keys (private_key_jwt) to sign them.")
        }
        guard signed else { throw OAuthError(.invalidRequestObject, "The request object's signature is not the client's.") }
        let claims = jws.payload
        let now = clock.now()
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard (claims["iss"] as? String) == client.id, audiences.contains(issuer) || audiences.contains(issuer + "/") else {
            throw OAuthError(.invalidRequestObject, "The request object must be issued by the client (iss) for \(issuer) (aud).")
        }
        if let named = claims["client_id"], (named as? String) != client.id {
            throw OAuthError(.invalidRequestObject, "The request object's client_id is another client's.")
        }
        guard let expiry = (claims["exp"] as? NSNumber)?.int64Value, expiry > now, expiry - now <= Self.maximumLifetime else {
            throw OAuthError(.invalidRequestObject, "The request object has expired, or has no exp, or lives longer than an hour.")
        }
        if let notBefore = (claims["nbf"] as? NSNumber)?.int64Value, notBefore > now + 60 || now - notBefore > Self.maximumLifetime {
            throw OAuthError(.invalidRequestObject, "The request object's nbf is in the future or more than an hour ago.")
        }
        return claims
    }
}
