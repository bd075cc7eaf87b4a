import Foundation
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Calls the provider's token, revocation and userinfo endpoints as a public client.
struct TokenClient: Sendable {
    let configuration: GatehouseConfiguration
    let metadata: OpenIDProviderMetadata
    /// The session's DPoP key, when its tokens are bound to one: token requests and userinfo then carry proofs.
    var dpop: DPoPProofs? = nil
    private var provider: ProviderRequest { ProviderRequest(configuration: configuration) }

    func exchange(code: String, verifier: String, redirectURI: String) async throws(GatehouseError) -> TokenResponse {
        try await tokenRequest([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
            ("code_verifier", verifier),
        ])
    }

    func refresh(_ refreshToken: String) async throws(GatehouseError) -> TokenResponse {
        try await tokenRequest([("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
    }

    /// Asks for a device's pair of codes (RFC 8628 §3.1).
    func deviceAuthorization(scopes: [String]) async throws(GatehouseError) -> DeviceAuthorizationResponse {
        guard let endpoint = metadata.deviceAuthorizationEndpoint else {
            throw .discovery(.malformedDocument("the provider offers no device_authorization_endpoint"))
        }
        let (data, response) = try await post(endpoint, [("scope", scopes.joined(separator: " "))])
        guard response.statusCode == 200 else { throw Self.error(data, response) }
        guard let codes = try? JSONDecoder().decode(DeviceAuthorizationResponse.self, from: data) else { throw .unexpectedResponse(status: 200) }
        return codes
    }

    /// One poll of the token endpoint with a device code (RFC 8628 §3.4): the tokens, or the provider's answer why not yet.
    func pollDeviceCode(_ deviceCode: String) async throws(GatehouseError) -> TokenResponse {
        try await tokenRequest([("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)])
    }

    /// Pushes an authorization request's parameters (RFC 9126 §2), with a DPoP proof when the sign-in has a key, and
    /// returns the reference the browser is sent with.
    func pushAuthorizationRequest(_ parameters: [(name: String, value: String)]) async throws(GatehouseError) -> PushedAuthorizationResponse {
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint else {
            throw .discovery(.malformedDocument("the provider offers no pushed_authorization_request_endpoint"))
        }
        // `post` names the client itself.
        let pushed = parameters.filter { $0.name != "client_id" }.map { ($0.name, $0.value) }
        let (data, response) = try await postWithProof(endpoint, pushed)
        guard response.statusCode == 201 || response.statusCode == 200 else { throw Self.error(data, response) }
        guard let answer = try? JSONDecoder().decode(PushedAuthorizationResponse.self, from: data) else {
            throw .unexpectedResponse(status: response.statusCode)
        }
        return answer
    }

    func revoke(_ token: String, hint: String) async throws(GatehouseError) {
        let (data, response) = try await post(metadata.revocationEndpoint, [("token", token), ("token_type_hint", hint)])
        guard response.statusCode == 200 else { throw Self.error(data, response) }
    }

    func userinfo(accessToken: String, tokenType: String) async throws(GatehouseError) -> UserInfo {
        let (data, response) = try await resource(try provider.make(metadata.userinfoEndpoint), accessToken: accessToken, tokenType: tokenType)
        guard response.statusCode == 200 else { throw Self.error(data, response) }
        guard let info = try? JSONDecoder().decode(UserInfo.self, from: data) else { throw .unexpectedResponse(status: 200) }
        return info
    }

    /// Sends `request` to a protected resource of the provider (userinfo, the account API) with the access token.
    func resource(_ request: URLRequest, accessToken: String, tokenType: String) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        var authorized = request
        try await authorize(&authorized, accessToken: accessToken, tokenType: tokenType)
        var (data, response) = try await provider.send(authorized)
        // RFC 9449 §9: a resource server may ask for its nonce; one retry carries it.
        if response.statusCode == 401, let dpop, await dpop.remember(response) {
            authorized = request
            try await authorize(&authorized, accessToken: accessToken, tokenType: tokenType)
            (data, response) = try await provider.send(authorized)
        }
        return (data, response)
    }

    /// Puts the access token on `request`: as a DPoP-bound token with a proof for the request, or as a bearer token.
    func authorize(_ request: inout URLRequest, accessToken: String, tokenType: String) async throws(GatehouseError) {
        guard tokenType.caseInsensitiveCompare("DPoP") == .orderedSame, let dpop, let url = request.url else {
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
            return
        }
        request.setValue("DPoP \(accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue(try await dpop.proof(method: request.httpMethod ?? "GET", url: url, accessToken: accessToken), forHTTPHeaderField: "DPoP")
    }

    private func tokenRequest(_ parameters: [(String, String)]) async throws(GatehouseError) -> TokenResponse {
        let (data, response) = try await postWithProof(metadata.tokenEndpoint, parameters)
        guard response.statusCode == 200 else { throw Self.error(data, response) }
        guard let tokens = try? JSONDecoder().decode(TokenResponse.self, from: data) else { throw .unexpectedResponse(status: 200) }
        return tokens
    }

    /// A POST with a DPoP proof when the session has a key. RFC 9449 §8: a provider that wants its nonce in proofs
    /// says so once; the retry carries it.
    private func postWithProof(_ endpoint: String, _ parameters: [(String, String)]) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        var (data, response) = try await post(endpoint, parameters, proving: true)
        if response.statusCode == 400, let dpop, await dpop.remember(response),
            (try? JSONDecoder().decode(OAuthErrorResponse.self, from: data))?.error == "use_dpop_nonce"
        {
            (data, response) = try await post(endpoint, parameters, proving: true)
        }
        if let dpop { await dpop.remember(response) }
        return (data, response)
    }

    private func post(_ endpoint: String, _ parameters: [(String, String)], proving: Bool = false) async throws(GatehouseError) -> (Data, HTTPURLResponse) {
        var request = try provider.make(endpoint)
        request.httpMethod = "POST"
        if proving, let dpop, let url = request.url {
            request.setValue(try await dpop.proof(method: "POST", url: url), forHTTPHeaderField: "DPoP")
        }
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormEncoding.encode([("client_id", configuration.clientID)] + parameters.map { ($0, $1) }).utf8)
        return try await provider.send(request)
    }

    /// `invalid_grant` and `invalid_token` mean the tokens are gone: the user is signed out.
    static func error(_ data: Data, _ response: HTTPURLResponse) -> GatehouseError {
        guard let body = try? JSONDecoder().decode(OAuthErrorResponse.self, from: data) else {
            return .unexpectedResponse(status: response.statusCode)
        }
        if body.error == "invalid_grant" || body.error == "invalid_token" { return .signedOut }
        return .provider(status: response.statusCode, error: body.error, description: body.errorDescription)
    }
}
