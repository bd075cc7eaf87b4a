/// The server's answer to starting a flow or submitting a node.
///
/// - `continue`: ``node`` is the next step.
/// - `error`: ``node`` is the same step again, with messages (wrong password); the user can retry.
/// - `failure`: the flow cannot go on (expired, unknown); ``failure`` says why; start over.
/// - `success`: the flow is done; ``authorization`` carries the code to exchange with the PKCE verifier.
public struct FlowResponse: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case `continue`, error, failure, success
    }

    public var status: Status
    /// The secret that continues this flow; send it back with the next submission.
    public var flowID: String?
    public var node: FlowNode?
    public var failure: OAuthErrorResponse?
    public var authorization: FlowAuthorization?

    public init(status: Status, flowID: String? = nil, node: FlowNode? = nil, failure: OAuthErrorResponse? = nil, authorization: FlowAuthorization? = nil) {
        self.status = status
        self.flowID = flowID
        self.node = node
        self.failure = failure
        self.authorization = authorization
    }

    enum CodingKeys: String, CodingKey {
        case status, node, failure, authorization
        case flowID = "flow_id"
    }
}

/// The result of a successful flow started by an authorization request: what the redirect would carry.
public struct FlowAuthorization: Codable, Sendable, Equatable {
    public var code: String
    public var state: String?
    public var issuer: String
    public var redirectURI: String
    /// A device token naming the account that signed in, when the submission presented none for it: keep it on the
    /// device, also after signing out, and send it back in ``FlowSubmission/deviceTokens``.
    public var deviceToken: String?

    public init(code: String, state: String?, issuer: String, redirectURI: String, deviceToken: String? = nil) {
        self.code = code
        self.state = state
        self.issuer = issuer
        self.redirectURI = redirectURI
        self.deviceToken = deviceToken
    }

    enum CodingKeys: String, CodingKey {
        case code, state
        case issuer = "iss"
        case redirectURI = "redirect_uri"
        case deviceToken = "device_token"
    }
}

/// Starts a native flow with the parameters of an authorization request.
public struct FlowStartRequest: Codable, Sendable, Equatable {
    public var clientID: String
    public var redirectURI: String
    public var scope: String
    public var state: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var loginHint: String?
    /// Requested authentication context classes, space-separated; `urn:gatehouse:acr:mfa` asks for a second factor.
    public var acrValues: String?

    public init(
        clientID: String, redirectURI: String, scope: String, state: String? = nil, nonce: String? = nil,
        codeChallenge: String? = nil, codeChallengeMethod: String? = nil, loginHint: String? = nil, acrValues: String? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.loginHint = loginHint
        self.acrValues = acrValues
    }

    enum CodingKeys: String, CodingKey {
        case scope, state, nonce
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
        case loginHint = "login_hint"
        case acrValues = "acr_values"
    }
}

/// A node submitted by the user: which action, and the values of its fields by key.
public struct FlowSubmission: Codable, Sendable, Equatable {
    public var clientID: String
    public var action: String
    public var values: [String: FieldValue]
    /// The device tokens earlier sign-ins on this device were given (``FlowAuthorization/deviceToken``), at most
    /// eight. Wrong passwords and codes for an account a token names are counted per token, so someone guessing
    /// at that account elsewhere does not keep its owner out on this device.
    public var deviceTokens: [String]?

    public init(clientID: String, action: String = "submit", values: [String: FieldValue], deviceTokens: [String]? = nil) {
        self.clientID = clientID
        self.action = action
        self.values = values
        self.deviceTokens = deviceTokens
    }

    enum CodingKeys: String, CodingKey {
        case action, values
        case clientID = "client_id"
        case deviceTokens = "device_tokens"
    }
}
