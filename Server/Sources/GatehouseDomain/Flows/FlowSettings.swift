/// What the configuration says about sign-in flows, read once at start: the steps, the policies of each journey,
/// the providers offered, and how the server names itself in what a person sees.
package struct FlowSettings: Sendable {
    /// The issuer: the base of the URLs a flow hands out.
    package var issuer: String
    /// How messages and authenticator apps name this server: its host (and port).
    package var serviceName: String
    /// Username and password on one node, or one after the other.
    package var loginSteps: LoginSteps
    /// What signing in takes, unless ``clientSignOn`` names the client.
    package var signOn: SignOnPolicy
    /// Sign-on policies for particular clients, by client id.
    package var clientSignOn: [String: SignOnPolicy]
    package var registration: RegistrationPolicy
    package var passwords: PasswordPolicy
    package var oneTimeCodes: OneTimeCodePolicy
    package var webAuthn: WebAuthnPolicy
    /// Other identity providers offered on the sign-in node.
    package var identityProviders: [IdentityProvider]
    /// Sign-in by QR code, approved in the authenticator app.
    package var authenticator: AuthenticatorPolicy
    /// Seconds a flow may take from its first node to its end.
    package var lifetime: Int64
    /// Clients' own names and logos where a node names the application (`branding.clients`).
    package var branding = BrandingPolicy()

    package init(
        issuer: String, serviceName: String, loginSteps: LoginSteps, signOn: SignOnPolicy, clientSignOn: [String: SignOnPolicy],
        registration: RegistrationPolicy, passwords: PasswordPolicy, oneTimeCodes: OneTimeCodePolicy, webAuthn: WebAuthnPolicy,
        identityProviders: [IdentityProvider], authenticator: AuthenticatorPolicy, lifetime: Int64
    ) {
        self.issuer = issuer
        self.serviceName = serviceName
        self.loginSteps = loginSteps
        self.signOn = signOn
        self.clientSignOn = clientSignOn
        self.registration = registration
        self.passwords = passwords
        self.oneTimeCodes = oneTimeCodes
        self.webAuthn = webAuthn
        self.identityProviders = identityProviders
        self.authenticator = authenticator
        self.lifetime = lifetime
    }

    /// The sign-on policy for `clientID`.
    package func signOnPolicy(for clientID: String) -> SignOnPolicy {
        clientSignOn[clientID] ?? signOn
    }

    /// The identity provider configured as `id`.
    package func identityProvider(_ id: String) -> IdentityProvider? {
        identityProviders.first { $0.id == id }
    }

    /// An absolute URL on this server.
    package func url(_ path: String) -> String { issuer + path }
}
