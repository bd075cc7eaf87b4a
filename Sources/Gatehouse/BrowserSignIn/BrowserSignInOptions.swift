/// What a browser sign-in asks the provider for, beyond the configuration's client and scopes.
public struct BrowserSignInOptions: Sendable {
    /// `prompt` values (OpenID Connect Core §3.1.2.1): `login` to sign in again even with a session, `none` to fail with
    /// `login_required` instead of showing a page, `consent`, `select_account`, `create`.
    public var prompt: [String]
    /// Pre-fills the username (`login_hint`).
    public var loginHint: String?
    /// Assurances asked for, most preferred first (`acr_values`), such as ``UserSession/multiFactorACR``.
    public var acrValues: [String]
    /// The oldest sign-in, in seconds, the provider may reuse (`max_age`); the ID token's `auth_time` is checked against it.
    public var maxAge: Int?
    /// Scopes for this sign-in instead of ``GatehouseConfiguration/scopes``.
    public var scopes: [String]?
    /// Whether to push the request to the provider ahead (RFC 9126) when it offers that, so the browser carries only a
    /// one-time reference: its parameters can be neither read nor changed on the way. On by default.
    public var pushesRequest: Bool
    /// More parameters for the authorization request. Those the SDK sets itself (`client_id`, `redirect_uri`,
    /// `state`, `nonce`, `code_challenge`, …) are not overridden.
    public var additionalParameters: [String: String]

    /// Options for a sign-in; by default none beyond the configuration's.
    public init(
        prompt: [String] = [], loginHint: String? = nil, acrValues: [String] = [], maxAge: Int? = nil, scopes: [String]? = nil,
        additionalParameters: [String: String] = [:], pushesRequest: Bool = true
    ) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.scopes = scopes
        self.additionalParameters = additionalParameters
        self.pushesRequest = pushesRequest
    }
}
