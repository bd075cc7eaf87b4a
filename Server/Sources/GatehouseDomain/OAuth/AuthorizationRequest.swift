/// A validated authorization request (OpenID Connect Core §3.1.2.1), waiting for the user or ready for a code; or the
/// sign-in a `/device` page asked for.
package struct AuthorizationRequest: Sendable, Equatable, Codable {
    package var clientID: String
    package var redirectURI: String
    package var scopes: [String]
    package var state: String?
    package var nonce: String?
    /// The S256 PKCE challenge, when the client sent one.
    package var codeChallenge: String?
    /// `prompt` values: `none`, `login`, `consent`, `select_account`, `create`.
    package var prompts: Set<String>
    package var maxAge: Int64?
    package var loginHint: String?
    /// Requested authentication context classes (`acr_values`), most preferred first.
    package var acrValues: [String]?
    /// The DPoP key the code will be bound to (`dpop_jkt`, RFC 9449 §10): its RFC 7638 thumbprint.
    package var dpopJKT: String? = nil
    /// Set when the sign-in is for a device's user code (RFC 8628): it ends on the `/device` page's confirmation
    /// instead of with a code for `redirectURI`.
    package var deviceAuthorizationID: String? = nil
    /// Set when the sign-in is for a page of this server (the account page): it ends with the browser session and a
    /// redirect to this path, instead of with a code for `redirectURI`.
    package var returnPath: String? = nil
    /// The resources (APIs) the request named (RFC 8707 `resource`), each registered and open to the client; `nil` or
    /// empty for none.
    package var resources: [String]? = nil
    /// The claims asked for by name (`claims`, OpenID Connect Core §5.5).
    package var claims: ClaimsRequest? = nil
    /// The client's security profile when it has one (FAPI 2.0 shortens the code's life).
    package var profile: SecurityProfile? = nil
    /// The languages the person prefers (`ui_locales`, BCP 47 tags), most preferred first; the pages speak the first one
    /// Gatehouse ships.
    package var uiLocales: [String]? = nil

    package var scope: String { scopes.joined(separator: " ") }

    /// The tags of a `ui_locales` value (space-separated, OpenID Connect Core §3.1.2.1), at most 16 of them.
    package static func languageTags(_ uiLocales: String) -> [String] {
        uiLocales.split(separator: " ").prefix(16).map(String.init)
    }

    package init(
        clientID: String, redirectURI: String, scopes: [String], state: String? = nil, nonce: String? = nil, codeChallenge: String? = nil, prompts: Set<String>,
        maxAge: Int64? = nil, loginHint: String? = nil, acrValues: [String]? = nil, dpopJKT: String? = nil, deviceAuthorizationID: String? = nil,
        resources: [String]? = nil
    ) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.prompts = prompts
        self.maxAge = maxAge
        self.loginHint = loginHint
        self.acrValues = acrValues
        self.dpopJKT = dpopJKT
        self.deviceAuthorizationID = deviceAuthorizationID
        self.resources = resources
    }
}
