import Foundation
import GatehouseProtocol

@testable import Gatehouse

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A provider in memory for unit tests: discovery, JWKS, the flow API answering from a script, and a
/// token endpoint that checks the PKCE verifier against the challenge the flow started with.
actor MockProvider: HTTPTransport {
    static let issuer = "https://id.example.com"
    let signer = TestIssuer()
    /// Answers to flow submissions, in order: status code and body.
    var script: [(Int, FlowResponse)] = []
    /// Answer to the start request.
    var firstNode: FlowNode
    /// The nonce the ID token will carry; `nil` means the one the flow sent.
    var tokenNonce: String?
    private(set) var requests: [String] = []
    private(set) var submissions: [FlowSubmission] = []
    private(set) var started: FlowStartRequest?
    private(set) var exchangedVerifier: String?
    var failNetwork = false

    init(firstNode: FlowNode) {
        self.firstNode = firstNode
    }

    func answer(_ responses: [(Int, FlowResponse)]) { script = responses }
    func setTokenNonce(_ nonce: String?) { tokenNonce = nonce }
    func setFailNetwork(_ fail: Bool) { failNetwork = fail }

    nonisolated func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await handle(request)
    }

    private func handle(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        if failNetwork { throw URLError(.cannotConnectToHost) }
        let url = request.url!
        requests.append(url.path)
        let body = request.httpBody ?? Data()
        switch url.path {
        case "/.well-known/openid-configuration":
            return try json(
                200,
                [
                    "issuer": Self.issuer, "authorization_endpoint": "\(Self.issuer)/authorize", "token_endpoint": "\(Self.issuer)/token",
                    "userinfo_endpoint": "\(Self.issuer)/userinfo", "jwks_uri": "\(Self.issuer)/jwks", "revocation_endpoint": "\(Self.issuer)/revoke",
                    "introspection_endpoint": "\(Self.issuer)/introspect", "end_session_endpoint": "\(Self.issuer)/logout",
                    "scopes_supported": ["openid"], "response_types_supported": ["code"], "response_modes_supported": ["query"],
                    "grant_types_supported": ["authorization_code"], "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["RS256"], "token_endpoint_auth_methods_supported": ["none"],
                    "revocation_endpoint_auth_methods_supported": ["none"], "introspection_endpoint_auth_methods_supported": ["none"],
                    "code_challenge_methods_supported": ["S256"], "claims_supported": ["sub"], "prompt_values_supported": ["none"],
                    "authorization_response_iss_parameter_supported": true, "request_parameter_supported": false,
                    "request_uri_parameter_supported": false, "claims_parameter_supported": false,
                    "frontchannel_logout_supported": false, "backchannel_logout_supported": false,
                ])
        case "/jwks":
            return (try JSONEncoder().encode(signer.keySet), response(url, 200))
        case "/flows/login":
            started = try JSONDecoder().decode(FlowStartRequest.self, from: body)
            return (try JSONEncoder().encode(FlowResponse(status: .continue, flowID: "flow-1", node: firstNode)), response(url, 200))
        case "/flows/flow-1":
            submissions.append(try JSONDecoder().decode(FlowSubmission.self, from: body))
            guard !script.isEmpty else { throw URLError(.badServerResponse) }
            var (status, answer) = script.removeFirst()
            if answer.authorization?.state == "from-request" { answer.authorization?.state = started?.state }
            return (try JSONEncoder().encode(answer), response(url, status))
        case "/token":
            let form = String(decoding: body, as: UTF8.self).split(separator: "&").reduce(into: [String: String]()) { result, pair in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                result[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            exchangedVerifier = form["code_verifier"]
            guard let verifier = form["code_verifier"], PKCE.challenge(for: verifier) == started?.codeChallenge else {
                return try json(400, ["error": "invalid_grant", "error_description": "PKCE verification failed"])
            }
            let idToken = try signer.token(claims: ["aud": "app", "azp": "app", "nonce": tokenNonce ?? started?.nonce ?? ""])
            return (
                try JSONEncoder().encode(TokenResponse(accessToken: "at-1", expiresIn: 300, refreshToken: "rt-1", idToken: idToken)),
                response(url, 200)
            )
        default:
            return try json(404, ["error": "not_found"])
        }
    }

    private func json(_ status: Int, _ object: [String: Any]) throws -> (Data, HTTPURLResponse) {
        (try JSONSerialization.data(withJSONObject: object), response(URL(string: Self.issuer)!, status))
    }

    private func response(_ url: URL, _ status: Int) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])!
    }
}
