import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Hummingbird
import SQLKit

/// Authenticates the client calling the token, PAR, revocation, introspection and device-authorization endpoints by
/// the method it registered (``ClientAuthenticationMethod``): its secret (`client_secret_basic` or
/// `client_secret_post`, either way), an assertion MACed with its secret (`client_secret_jwt`) or signed with its key
/// (`private_key_jwt`); public clients identify themselves with `client_id` only.
///
/// In two steps, so that an endpoint that writes anyway can look the client up inside its write transaction:
/// ``Credentials`` are read from the request without the database, then checked against the stored client.
struct ClientAuthenticator: Sendable {
    let clients: ClientStore
    /// Checks the assertions of clients that authenticate with a key.
    let assertions: ClientAssertionVerifier

    /// What the caller claims: a client id, and the secret or assertion it presented, if any.
    struct Credentials: Sendable {
        var clientID: String
        var secret: String?
        /// A `private_key_jwt` assertion (`client_assertion`).
        var assertion: String?
        /// Set by ``ClientAssertionVerifier`` only, once the assertion is checked.
        var assertionVerified = false

        /// Reads `client_id` and `client_secret`, or HTTP Basic credentials, from a request (not both ways at once).
        init(of request: Request, parameters: FormParameters) throws {
            var clientID = parameters["client_id"]
            if let type = parameters["client_assertion_type"] {
                guard type == ClientAssertionVerifier.assertionType, let assertion = parameters["client_assertion"] else {
                    throw OAuthError.invalidClient("client_assertion_type must be \(ClientAssertionVerifier.assertionType), with client_assertion.")
                }
                guard AuthorizationCredentials.of("Basic", in: request.headers) == nil, parameters["client_secret"] == nil else {
                    throw OAuthError.invalidRequest("Use one client authentication method, not an assertion and a secret.")
                }
                // The client is the assertion's subject; a client_id sent too must agree.
                guard let subject = CompactJWS(assertion)?.payload["sub"] as? String, clientID == nil || clientID == subject else {
                    throw OAuthError.invalidClient("Client authentication failed.")
                }
                self.clientID = subject
                self.assertion = assertion
                return
            }
            if let basic = AuthorizationCredentials.of("Basic", in: request.headers) {
                guard parameters["client_secret"] == nil else {
                    throw OAuthError.invalidRequest("Use one client authentication method, not both Basic and client_secret.")
                }
                guard let credentials = ClientAuthenticator.basicCredentials(basic) else {
                    throw OAuthError.invalidClient("The Basic authorization header is malformed.")
                }
                if let clientID, clientID != credentials.id {
                    throw OAuthError.invalidRequest("client_id differs from the client in the Authorization header.")
                }
                clientID = credentials.id
                secret = credentials.secret
            } else {
                secret = parameters["client_secret"]
            }
            guard let clientID, !clientID.isEmpty else {
                throw OAuthError.invalidClient("The client is not identified; send client_id or HTTP Basic credentials.")
            }
            self.clientID = clientID
            // An empty secret is no secret (RFC 6749 §2.3.1): a public client sending `client_id:` in Basic, as
            // oidc-agent does, or an empty `client_secret` field identifies itself like one sending its id alone.
            if secret?.isEmpty == true { secret = nil }
        }
    }

    /// The request's credentials, its assertion checked for a request to `path` when it carries one.
    func credentials(of request: Request, parameters: FormParameters, path: String) async throws -> Credentials {
        try await assertions.verified(try Credentials(of: request, parameters: parameters), path: path)
    }

    /// The client the request to `path` authenticates as, read on a read connection.
    func authenticate(_ request: Request, parameters: FormParameters, path: String) async throws -> Client {
        try await authenticate(try await credentials(of: request, parameters: parameters, path: path))
    }

    /// The client `credentials` (their assertion already verified) authenticate as, read on a read connection.
    func authenticate(_ credentials: Credentials) async throws -> Client {
        try Self.verify(credentials, against: try await clients.find(id: credentials.clientID))
    }

    /// The client `credentials` authenticate as, read inside a transaction already open.
    static func authenticate(_ credentials: Credentials, in sql: any SQLDatabase) async throws -> Client {
        try verify(credentials, against: try await ClientStore.find(id: credentials.clientID, in: sql))
    }

    /// `client` when `credentials` prove to be it: no secret for a public client, its secret for a confidential one.
    ///
    /// Every failure is the same error, so a caller learns nothing about which client ids exist or which are public.
    static func verify(_ credentials: Credentials, against client: Client?) throws -> Client {
        let failed = OAuthError.invalidClient("Client authentication failed.")
        guard let client else { throw failed }
        // A client registered for assertions proves itself only with one, checked; any other client never with one.
        if client.authenticationMethod.usesAssertion {
            guard credentials.assertionVerified, credentials.secret == nil else { throw failed }
            return client
        }
        guard credentials.assertion == nil else { throw failed }
        switch (client.secretHash, credentials.secret) {
        case (nil, nil):
            return client
        case (nil, .some):
            throw failed
        case (.some, nil):
            throw failed
        case (.some(let hash), .some(let secret)):
            guard ConstantTime.equals(TokenDigest.hex(secret), hash) else { throw failed }
            return client
        }
    }

    /// The client id and secret of `Basic` credentials: base64 of `id:secret`, each part form-urlencoded first
    /// (RFC 6749 §2.3.1); `nil` when any of that is broken. Decoded on bytes: Foundation's string replacement and
    /// percent decoding cost more than the rest of a client-credentials request.
    static func basicCredentials(_ credentials: String) -> (id: String, secret: String)? {
        guard let decoded = Data(base64Encoded: credentials), let colon = decoded.firstIndex(of: UInt8(ascii: ":")),
            let id = FormParameters.decodeComponent(decoded[..<colon]),
            let secret = FormParameters.decodeComponent(decoded[decoded.index(after: colon)...])
        else { return nil }
        return (id, secret)
    }
}
