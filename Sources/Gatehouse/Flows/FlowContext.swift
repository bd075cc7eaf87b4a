import Foundation
import GatehouseProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One running flow on the device: its id at the server and the secrets of the authorization request
/// behind it (PKCE verifier, state, nonce), which never leave the device until the code is exchanged.
struct FlowContext: Sendable {
    let client: GatehouseClient
    let metadata: OpenIDProviderMetadata
    let flowID: String
    let verifier: String
    let state: String
    let nonce: String
    /// How the sign-in ends: its DPoP key, made at the start so the request can name it.
    let completion: SignInCompletion
    /// The session a step-up sign-in replaces the tokens of (``UserSession/stepUp(acrValues:maxAge:)``), if any.
    var replacing: UserSession? = nil
    /// The request's `max_age`, which the ID token's `auth_time` is checked against.
    var maxAge: Int? = nil

    private var configuration: GatehouseConfiguration { client.configuration }
    /// The languages the app's user reads, which the server's messages arrive in: the SDK's own words follow them.
    var preferredLanguages: [String] { configuration.preferredLanguages }
    private var provider: ProviderRequest { ProviderRequest(configuration: configuration) }

    /// Starts a flow of `kind` with a fresh authorization request; returns its first node.
    static func begin(
        client: GatehouseClient, kind: FlowKind, loginHint: String?, acrValues: [String]? = nil, maxAge: Int? = nil, prompt: [String]? = nil,
        replacing: UserSession? = nil
    ) async -> Node {
        let configuration = client.configuration
        do throws(GatehouseError) {
            let metadata = try await client.metadata()
            let verifier = PKCE.makeVerifier()
            let state = PKCE.makeVerifier()
            let nonce = PKCE.makeVerifier()
            let completion = try SignInCompletion(configuration: configuration, metadata: metadata)
            let request = FlowStartRequest(
                clientID: configuration.clientID, redirectURI: configuration.redirectURI, scope: configuration.scopes.joined(separator: " "),
                state: state, nonce: nonce, codeChallenge: PKCE.challenge(for: verifier), codeChallengeMethod: PKCE.method, loginHint: loginHint,
                acrValues: acrValues.map { $0.joined(separator: " ") }, prompt: prompt.map { $0.joined(separator: " ") }, maxAge: maxAge,
                dpopJKT: completion.dpopThumbprint
            )
            let endpoint = configuration.issuer.appendingPathComponent("flows/\(kind.rawValue)").absoluteString
            let response = try await Self.decode(ProviderRequest(configuration: configuration).postJSON(endpoint, request))
            guard let flowID = response.flowID else { throw .unexpectedResponse(status: 200) }
            configuration.logger.debug("Started a \(kind.rawValue) flow", metadata: ["node": "\(response.node?.id ?? "")"])
            let context = FlowContext(
                client: client, metadata: metadata, flowID: flowID, verifier: verifier, state: state, nonce: nonce, completion: completion,
                replacing: replacing, maxAge: maxAge)
            return await context.node(for: response)
        } catch {
            return .failure(FailureNode(cause: error))
        }
    }

    /// Submits `values` with `action` and returns where the flow went.
    func submit(action: String, values: [String: FieldValue]) async -> Node {
        do throws(GatehouseError) {
            let endpoint = configuration.issuer.appendingPathComponent("flows").appendingPathComponent(flowID).absoluteString
            let deviceTokens = await DeviceTokens(configuration: configuration).read()
            let submission = FlowSubmission(
                clientID: configuration.clientID, action: action, values: values,
                deviceTokens: deviceTokens.isEmpty ? nil : deviceTokens)
            return await node(for: try await Self.decode(provider.postJSON(endpoint, submission)))
        } catch {
            return .failure(FailureNode(cause: error))
        }
    }

    private func node(for response: FlowResponse) async -> Node {
        switch response.status {
        case .continue:
            guard let node = response.node else { return .failure(FailureNode(cause: .unexpectedResponse(status: 200))) }
            return .continue(ContinueNode(node: node, context: self))
        case .error:
            guard let node = response.node else { return .failure(FailureNode(cause: .unexpectedResponse(status: 200))) }
            return .error(ErrorNode(messages: node.messages, error: Self.error(for: node.messages), retry: ContinueNode(node: node, context: self)))
        case .failure:
            let cause: GatehouseError =
                switch response.failure?.error {
                case "flow_expired": .flowExpired
                case "too_many_attempts": .throttled
                case let error?: .provider(status: 200, error: error, description: response.failure?.errorDescription)
                case nil: .unexpectedResponse(status: 200)
                }
            return .failure(FailureNode(cause: cause))
        case .success:
            guard let authorization = response.authorization else { return .failure(FailureNode(cause: .unexpectedResponse(status: 200))) }
            do throws(GatehouseError) {
                return .success(try await complete(authorization))
            } catch {
                return .failure(FailureNode(cause: error))
            }
        }
    }

    /// Checks where the code came from, exchanges it with the PKCE verifier, validates the ID token and
    /// stores the tokens.
    private func complete(_ authorization: FlowAuthorization) async throws(GatehouseError) -> SuccessNode {
        // RFC 9207 and the state: the code must come from this provider, for this request.
        guard authorization.issuer == metadata.issuer, let returned = authorization.state, ConstantTime.equals(returned, state) else {
            throw .invalidIDToken(.wrongIssuer(expected: metadata.issuer, found: authorization.issuer))
        }
        let success = try await completion.exchange(
            code: authorization.code, verifier: verifier, redirectURI: configuration.redirectURI, nonce: nonce, maxAge: maxAge,
            replacing: replacing)
        if let deviceToken = authorization.deviceToken { await DeviceTokens(configuration: configuration).remember(deviceToken) }
        return success
    }

    /// The typed reason behind an error node's messages.
    static func error(for messages: [FlowMessage]) -> GatehouseError {
        switch messages.lazy.compactMap(\.code).first {
        case "invalid_credentials": .invalidCredentials
        case "throttled": .throttled
        case "locked": .locked
        case "already_answered": .alreadyAnswered
        default: .invalidInput(messages)
        }
    }

    /// Reads a flow answer; a 404 failure is an expired flow, other errors are the provider's.
    private static func decode(_ answer: (Data, HTTPURLResponse)) throws(GatehouseError) -> FlowResponse {
        let (data, response) = answer
        if let flow = try? JSONDecoder().decode(FlowResponse.self, from: data), response.statusCode == 200 || flow.status == .failure {
            return flow
        }
        throw TokenClient.error(data, response)
    }
}
