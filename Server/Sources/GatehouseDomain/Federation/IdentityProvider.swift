import Foundation
import GatehouseFoundation

/// Another identity provider people may sign in with (`identity_providers` in the configuration file): an OpenID
/// provider found by discovery from its issuer, or a plain OAuth 2.0 provider with its URLs and a claim mapping.
/// A `preset` (google, microsoft, apple, github) fills in what those providers always need; any key given overrides it.
public struct IdentityProvider: Sendable, Decodable, Equatable {
    /// How Gatehouse talks to the provider.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// An OpenID provider: discovery, the authorization code with PKCE, a validated ID token, userinfo.
        case oidc
        /// An OAuth 2.0 provider without ID tokens: the profile is read from its API with the access token.
        case oauth2
    }

    /// How Gatehouse proves to the provider's token endpoint that it is the client.
    public enum ClientAuthentication: String, Sendable, Codable, CaseIterable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        /// A JWT signed with `private_key_file` (RFC 7523).
        case privateKeyJWT = "private_key_jwt"
        /// Sign in with Apple: the client secret is a short JWT signed with the key from Apple's developer account.
        case appleClientSecret = "apple_client_secret"
    }

    /// What happens the first time someone signs in with an identity of this provider that no account has yet.
    public enum NewIdentities: String, Sendable, Codable, CaseIterable {
        /// Create an account from the provider's claims (or, when the email address has an account, prove that one
        /// and link).
        case create
        /// Only link: the person proves an existing account first.
        case link
    }

    /// The provider's id in URLs and in linked identities: lowercase letters, digits, `-` and `_`. Changing it
    /// orphans the identities linked under the old one.
    public var id: String
    /// What the button says after "Sign in with".
    public var name: String
    /// An image URL shown on the button.
    public var icon: String?
    public var kind = Kind.oidc
    /// The issuer (`oidc`): discovery reads `issuer/.well-known/openid-configuration`, and ID tokens must name it.
    /// `{tenantid}` in it stands for the token's `tid` (Microsoft's multi-tenant issuers).
    public var issuer: String?
    /// Endpoints; for `oidc` they override discovery, for `oauth2` authorization, token and userinfo are required.
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    /// Where the profile is read: the OpenID userinfo endpoint, or an OAuth 2.0 provider's user API.
    public var userinfoEndpoint: String?
    /// A list of the user's addresses (GitHub's `/user/emails`), read when the profile has no verified address.
    public var emailsEndpoint: String?
    public var jwksURI: String?
    public var clientID = ""
    public var clientSecret: String?
    public var clientAuthentication = ClientAuthentication.clientSecretBasic
    /// A PEM private key (P-256 or RSA) for `private_key_jwt` and Apple's client secret.
    public var privateKeyFile: String?
    /// The key's id at the provider (`kid`).
    public var keyID: String?
    /// Apple's team id: the issuer of Apple's client secret.
    public var teamID: String?
    public var scopes: [String] = ["openid", "email", "profile"]
    /// `form_post` for providers that post the answer back (Apple, when it shares a name or email).
    public var responseMode: String?
    /// Which profile member holds what, for `oauth2` providers (and to override OpenID's standard claims).
    public var claims = ClaimMapping()
    /// Trust the provider's `email_verified`: only then is an address it gives marked verified, or used to offer
    /// linking to the account that has it.
    public var trustEmail = false
    /// Honour the provider's `amr`: a sign-in there with a second factor (`mfa`) counts as Gatehouse's second factor.
    public var trustMFA = false
    public var newIdentities = NewIdentities.create
    /// Keep the provider's tokens, sealed, with the linked identity (for apps that call the provider's API later).
    public var keepTokens = false
    /// Seconds to wait for each request to the provider.
    public var timeout = 10
    /// Also accept ID tokens an app obtained from the provider itself (the flow action `idp_token`): the native Sign
    /// in with Apple sheet, Google's SDK. Checked like the browser's: signature, issuer, expiry, and the flow's nonce.
    public var native = false
    /// The audiences of such tokens: the apps' bundle ids (Apple) or native client ids (Google). Empty: `client_id`.
    public var nativeAudiences: [String] = []

    /// The audiences a native ID token may name.
    package var acceptedNativeAudiences: [String] { nativeAudiences.isEmpty ? [clientID] : nativeAudiences }

    /// Which profile members hold the identity's claims.
    public struct ClaimMapping: Sendable, Codable, Equatable {
        public var subject = "sub"
        public var username = "preferred_username"
        public var name = "name"
        public var email = "email"
        public var emailVerified = "email_verified"

        public init() {}

        public init(from decoder: any Decoder) throws {
            self.init()
            let section = try decoder.section(CodingKeys.self)
            try section.update(&subject, .subject)
            try section.update(&username, .username)
            try section.update(&name, .name)
            try section.update(&email, .email)
            try section.update(&emailVerified, .emailVerified)
        }

        package enum CodingKeys: String, CodingKey, CaseIterable {
            case subject, username, name, email
            case emailVerified = "email_verified"
        }
    }

    /// A provider; tests and code that builds configurations start here.
    public init(id: String, name: String, kind: Kind = .oidc, issuer: String? = nil, clientID: String, clientSecret: String? = nil) {
        self.id = id
        self.name = name
        self.kind = kind
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    public init(from decoder: any Decoder) throws {
        let section = try decoder.section(CodingKeys.self)
        let id = try section.decode(String.self, forKey: .id)
        let preset = try section.decodeIfPresent(IdentityProviderPreset.self, forKey: .preset)
        let tenant = try section.decodeIfPresent(String.self, forKey: .tenant)
        self.init(id: id, name: id, clientID: "")
        if let preset { preset.apply(to: &self, tenant: tenant ?? "common") }
        try section.update(&name, .name)
        try section.update(&icon, .icon)
        try section.update(&kind, .kind)
        try section.update(&issuer, .issuer)
        try section.update(&authorizationEndpoint, .authorizationEndpoint)
        try section.update(&tokenEndpoint, .tokenEndpoint)
        try section.update(&userinfoEndpoint, .userinfoEndpoint)
        try section.update(&emailsEndpoint, .emailsEndpoint)
        try section.update(&jwksURI, .jwksURI)
        try section.update(&clientID, .clientID)
        try section.update(&clientSecret, .clientSecret)
        try section.update(&clientAuthentication, .clientAuthentication)
        try section.update(&privateKeyFile, .privateKeyFile)
        try section.update(&keyID, .keyID)
        try section.update(&teamID, .teamID)
        try section.update(&scopes, .scopes)
        try section.update(&responseMode, .responseMode)
        try section.update(&claims, .claims)
        try section.update(&trustEmail, .trustEmail)
        try section.update(&trustMFA, .trustMFA)
        try section.update(&newIdentities, .newIdentities)
        try section.update(&keepTokens, .keepTokens)
        try section.update(&timeout, .timeout)
        try section.update(&native, .native)
        try section.update(&nativeAudiences, .nativeAudiences)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, icon, kind, preset, tenant, issuer, scopes, claims, timeout, native
        case nativeAudiences = "native_audiences"
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case emailsEndpoint = "emails_endpoint"
        case jwksURI = "jwks_uri"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case clientAuthentication = "client_authentication"
        case privateKeyFile = "private_key_file"
        case keyID = "key_id"
        case teamID = "team_id"
        case responseMode = "response_mode"
        case trustEmail = "trust_email"
        case trustMFA = "trust_mfa"
        case newIdentities = "new_identities"
        case keepTokens = "keep_tokens"
    }

    /// The configuration key of provider number `index`, for messages.
    package static func key(_ index: Int, _ member: String) -> String { "identity_providers[\(index)].\(member)" }

    package func validate(index: Int, issuer ownIssuer: String) throws {
        let key = { Self.key(index, $0) }
        guard !id.isEmpty, id.count <= 32, id.allSatisfy({ ($0.isLowercase && $0.isASCII) || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ConfigurationError(key: key("id"), "must be 1 to 32 lowercase letters, digits, - or _, not \"\(id)\".")
        }
        guard !clientID.isEmpty else { throw ConfigurationError(key: key("client_id"), "is required: the client id the provider gave Gatehouse.") }
        func checkURL(_ value: String?, _ name: String) throws {
            guard let value else { return }
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), let host = url.host else {
                throw ConfigurationError(key: key(name), "must be an http or https URL, not \(value).")
            }
            guard scheme == "https" || (scheme == "http" && LoopbackHost.contains(host)) else {
                throw ConfigurationError(key: key(name), "must use https (plain http only on loopback), not \(value).")
            }
        }
        for (value, name) in [
            (issuer, "issuer"), (authorizationEndpoint, "authorization_endpoint"), (tokenEndpoint, "token_endpoint"), (userinfoEndpoint, "userinfo_endpoint"),
            (emailsEndpoint, "emails_endpoint"), (jwksURI, "jwks_uri"), (icon, "icon"),
        ] {
            try checkURL(value, name)
        }
        switch kind {
        case .oidc:
            guard issuer != nil else { throw ConfigurationError(key: key("issuer"), "is required for an oidc provider (discovery starts there).") }
        case .oauth2:
            for (value, name) in [
                (authorizationEndpoint, "authorization_endpoint"), (tokenEndpoint, "token_endpoint"), (userinfoEndpoint, "userinfo_endpoint"),
            ]
            where value == nil {
                throw ConfigurationError(key: key(name), "is required for an oauth2 provider.")
            }
        }
        switch clientAuthentication {
        case .clientSecretBasic, .clientSecretPost:
            guard clientSecret?.isEmpty == false else {
                throw ConfigurationError(key: key("client_secret"), "is required with \(clientAuthentication.rawValue).")
            }
        case .privateKeyJWT, .appleClientSecret:
            guard let privateKeyFile else {
                throw ConfigurationError(key: key("private_key_file"), "is required with \(clientAuthentication.rawValue).")
            }
            _ = try ClientAssertionSigner(pemFile: privateKeyFile, keyID: keyID)
            if clientAuthentication == .appleClientSecret {
                guard keyID != nil, teamID != nil else {
                    throw ConfigurationError(key: key("team_id"), "and key_id are required for Apple's client secret.")
                }
            }
        }
        if let responseMode, !["query", "form_post"].contains(responseMode) {
            throw ConfigurationError(key: key("response_mode"), "must be query or form_post, not \(responseMode).")
        }
        guard (1...60).contains(timeout) else { throw ConfigurationError(key: key("timeout"), "must be 1 to 60 seconds.") }
        if kind == .oidc, !scopes.contains("openid") {
            throw ConfigurationError(key: key("scopes"), "must include openid for an oidc provider.")
        }
        if issuer == ownIssuer { throw ConfigurationError(key: key("issuer"), "is this server's own issuer.") }
        if native, kind != .oidc { throw ConfigurationError(key: key("native"), "needs an oidc provider: an app's token is an ID token.") }
        if nativeAudiences.contains(where: { $0.isEmpty || $0.count > 255 }) {
            throw ConfigurationError(key: key("native_audiences"), "must be bundle ids or client ids of 1 to 255 characters.")
        }
    }
}

/// What the well-known providers always need, as configuration: a preset fills these in, any key given overrides them.
public enum IdentityProviderPreset: String, Sendable, Codable, CaseIterable {
    case google, microsoft, apple, github

    package func apply(to provider: inout IdentityProvider, tenant: String) {
        switch self {
        case .google:
            provider.name = "Google"
            provider.issuer = "https://accounts.google.com"
            provider.trustEmail = true
        case .microsoft:
            provider.name = "Microsoft"
            // Multi-tenant ("common", "organizations") tokens name the user's own tenant: `{tenantid}` matches `tid`.
            let named = ["common", "organizations", "consumers"].contains(tenant) ? "{tenantid}" : tenant
            provider.issuer = "https://login.microsoftonline.com/\(named)/v2.0"
            provider.authorizationEndpoint = "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/authorize"
            provider.tokenEndpoint = "https://login.microsoftonline.com/\(tenant)/oauth2/v2.0/token"
            provider.jwksURI = "https://login.microsoftonline.com/\(tenant)/discovery/v2.0/keys"
            provider.userinfoEndpoint = "https://graph.microsoft.com/oidc/userinfo"
        case .apple:
            provider.name = "Apple"
            provider.issuer = "https://appleid.apple.com"
            provider.scopes = ["openid", "email", "name"]
            provider.responseMode = "form_post"
            provider.clientAuthentication = .appleClientSecret
            provider.trustEmail = true
        case .github:
            provider.name = "GitHub"
            provider.kind = .oauth2
            provider.authorizationEndpoint = "https://github.com/login/oauth/authorize"
            provider.tokenEndpoint = "https://github.com/login/oauth/access_token"
            provider.userinfoEndpoint = "https://api.github.com/user"
            provider.emailsEndpoint = "https://api.github.com/user/emails"
            provider.scopes = ["read:user", "user:email"]
            provider.claims.subject = "id"
            provider.claims.username = "login"
            provider.trustEmail = true
        }
    }
}
