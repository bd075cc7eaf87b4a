/// A validated authorization request (OpenID Connect Core §3.1.2.1), waiting for the user or ready for a code; or the
/// sign-in a `/device` page asked for.
struct AuthorizationRequest: Sendable, Equatable, Codable {
    var clientID: String
    var redirectURI: String
    var scopes: [String]
    var state: String?
    var nonce: String?
    /// The S256 PKCE challenge, when the client sent one.
    var codeChallenge: String?
    /// `prompt` values: `none`, `login`, `consent`, `select_account`, `create`.
    var prompts: Set<String>
    var maxAge: Int64?
    var loginHint: String?
    /// Requested authentication context classes (`acr_values`), most preferred first.
    var acrValues: [String]?
    /// The DPoP key the code will be bound to (`dpop_jkt`, RFC 9449 §10): its RFC 7638 thumbprint.
    var dpopJKT: String? = nil
    /// Set when the sign-in is for a device's user code (RFC 8628): it ends on the `/device` page's confirmation
    /// instead of with a code for `redirectURI`.
    var deviceAuthorizationID: String? = nil

    var scope: String { scopes.joined(separator: " ") }
}
