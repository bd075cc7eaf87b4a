import Foundation
import GatehouseProtocol
import Hummingbird

/// Authenticates the client calling the token, revocation and introspection endpoints
/// with `client_secret_basic` or `client_secret_post`; public clients identify themselves with `client_id` only.
struct ClientAuthenticator: Sendable {
    let clients: ClientStore

    func authenticate(_ request: Request, parameters: FormParameters) async throws -> Client {
        var clientID = parameters["client_id"]
        var secret: String?
        if let basic = AuthorizationCredentials.of("Basic", in: request.headers) {
            guard parameters["client_secret"] == nil else {
                throw OAuthError.invalidRequest("Use one client authentication method, not both Basic and client_secret.")
            }
            guard let decoded = Data(base64Encoded: basic)
                    .flatMap({ String(data: $0, encoding: .utf8) }),
                  let colon = decoded.firstIndex(of: ":")
            else {
                throw OAuthError.invalidClient("The Basic authorization header is malformed.")
            }
            // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
            let basicID = Self.formDecode(String(decoded[..<colon]))
            if let clientID, clientID != basicID {
                throw OAuthError.invalidRequest("client_id differs from the client in the Authorization header.")
            }
            clientID = basicID
            secret = Self.formDecode(String(decoded[decoded.index(after: colon)...]))
        } else {
            secret = parameters["client_secret"]
        }
        guard let clientID, !clientID.isEmpty else {
            throw OAuthError.invalidClient("The client is not identified; send client_id or HTTP Basic credentials.")
        }
        guard let client = try await clients.find(id: clientID) else {
            throw OAuthError.invalidClient("Client authentication failed.")
        }
        switch (client.secretHash, secret) {
        case (nil, nil):
            return client
        case (nil, .some):
            throw OAuthError.invalidClient("This client is public and has no secret.")
        case (.some, nil):
            throw OAuthError.invalidClient("Client authentication failed.")
        case (.some(let hash), .some(let secret)):
            guard ConstantTime.equals(TokenDigest.hex(secret), hash) else {
                throw OAuthError.invalidClient("Client authentication failed.")
            }
            return client
        }
    }

    private static func formDecode(_ text: String) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
    }
}
