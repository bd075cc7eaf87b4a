/// The server's answer to starting a flow or submitting a node.
///
/// - `continue`: ``node`` is the next step.
/// - `error`: ``node`` is the same step again, with messages (wrong password); the user can retry.
/// - `failure`: the flow cannot go on (expired, unknown); ``failure`` says why; start over.
/// - `success`: the flow is done; ``authorization`` carries the code to exchange with the PKCE verifier.
public struct FlowResponse: Codable, Sendable, Equatable {
    /// How the flow went on.
    public enum Status: String, Codable, Sendable {
        /// ``FlowResponse/node`` is the next step.
        case `continue`
        /// ``FlowResponse/node`` is the same step again, with messages.
        case error
        /// The flow cannot go on; ``FlowResponse/failure`` says why.
        case failure
        /// The flow is done; ``FlowResponse/authorization`` carries the code.
        case success
    }

    /// How the flow went on.
    public var status: Status
    /// The secret that continues this flow; send it back with the next submission.
    public var flowID: String?
    /// The step to show, for `continue` and `error`.
    public var node: FlowNode?
    /// Why the flow ended, for `failure` (`flow_expired`, `too_many_attempts`).
    public var failure: OAuthErrorResponse?
    /// The authorization code and what the redirect would carry, for `success`.
    public var authorization: FlowAuthorization?

    /// An answer; only the members its status uses are set.
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
    /// The authorization code: exchange it at the token endpoint with the PKCE verifier. Single use, short-lived.
    public var code: String
    /// The `state` of the request that started the flow; check it before exchanging the code.
    public var state: String?
    /// The issuer (`iss`, RFC 9207); check it is the provider the flow was started with.
    public var issuer: String
    /// The redirect URI to send with the code.
    public var redirectURI: String
    /// A device token naming the account that signed in, when the submission presented none for it: keep it on the
    /// device, also after signing out, and send it back in ``FlowSubmission/deviceTokens``.
    public var deviceToken: String?

    /// What a successful flow answers with.
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
    /// The app's client id.
    public var clientID: String
    /// One of the client's registered redirect URIs; the code is bound to it.
    public var redirectURI: String
    /// The scopes asked for, space-separated, e.g. `openid profile offline_access`.
    public var scope: String
    /// An unguessable value the app checks in ``FlowAuthorization/state``.
    public var state: String?
    /// An unguessable value the ID token must carry.
    public var nonce: String?
    /// The PKCE challenge (RFC 7636): the base64url SHA-256 of the verifier the app keeps.
    public var codeChallenge: String?
    /// `S256`, the only method accepted.
    public var codeChallengeMethod: String?
    /// A username to fill in.
    public var loginHint: String?
    /// Requested authentication context classes, space-separated; `urn:gatehouse:acr:mfa` asks for a second factor.
    public var acrValues: String?
    /// `prompt` values, space-separated. A native flow always asks the person, so `login` is met by construction and
    /// `none` is refused.
    public var prompt: String?
    /// The oldest sign-in, in seconds, the request accepts (`max_age`); the ID token carries `auth_time`.
    public var maxAge: Int?
    /// The thumbprint of the DPoP key the code is for (`dpop_jkt`, RFC 9449 §10): only a proof by it redeems the code.
    public var dpopJKT: String?
    /// The languages the person reads, most preferred first, as BCP 47 tags separated by spaces (`ui_locales`): the
    /// flow's nodes and the messages it sends (codes, links) speak the first the server has, unless the person chose one.
    public var uiLocales: String?

    /// A start request with the parameters of an authorization request.
    public init(
        clientID: String, redirectURI: String, scope: String, state: String? = nil, nonce: String? = nil,
        codeChallenge: String? = nil, codeChallengeMethod: String? = nil, loginHint: String? = nil, acrValues: String? = nil,
        prompt: String? = nil, maxAge: Int? = nil, dpopJKT: String? = nil, uiLocales: String? = nil
    ) {
        self.uiLocales = uiLocales
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.loginHint = loginHint
        self.acrValues = acrValues
        self.prompt = prompt
        self.maxAge = maxAge
        self.dpopJKT = dpopJKT
    }

    enum CodingKeys: String, CodingKey {
        case scope, state, nonce, prompt
        case maxAge = "max_age"
        case dpopJKT = "dpop_jkt"
        case clientID = "client_id"
        case redirectURI = "redirect_uri"
        case codeChallenge = "code_challenge"
        case codeChallengeMethod = "code_challenge_method"
        case loginHint = "login_hint"
        case acrValues = "acr_values"
        case uiLocales = "ui_locales"
    }
}

/// A node submitted by the user: which action, and the values of its fields by key.
public struct FlowSubmission: Codable, Sendable, Equatable {
    /// The client that started the flow; a flow continues only for it.
    public var clientID: String
    /// The id of one of the node's actions.
    public var action: String
    /// The fields' values by key.
    public var values: [String: FieldValue]
    /// The device tokens earlier sign-ins on this device were given (``FlowAuthorization/deviceToken``), at most
    /// eight. Wrong passwords and codes for an account a token names are counted per token, so someone guessing
    /// at that account elsewhere does not keep its owner out on this device.
    public var deviceTokens: [String]?

    /// A submission of `values` with `action`, presenting the device tokens kept from earlier sign-ins.
    public init(clientID: String, action: String = FlowActionID.submit.rawValue, values: [String: FieldValue], deviceTokens: [String]? = nil) {
        self.clientID = clientID
        self.action = action
        self.values = values
        self.deviceTokens = deviceTokens
    }

    /// A submission of `values` with the action `action`.
    public init(clientID: String, action: FlowActionID, values: [String: FieldValue], deviceTokens: [String]? = nil) {
        self.init(clientID: clientID, action: action.rawValue, values: values, deviceTokens: deviceTokens)
    }

    enum CodingKeys: String, CodingKey {
        case action, values
        case clientID = "client_id"
        case deviceTokens = "device_tokens"
    }
}
