/// What a node's action is (``FlowAction/id``) and what a submission names (``FlowSubmission/action``). Which of
/// them a step may offer is ``FlowStep/actions``; sign-in with another identity provider is an action whose id is
/// ``identityProviderPrefix`` and the provider's id.
public enum FlowActionID: String, Codable, Sendable, CaseIterable {
    /// Submits the node's fields (the primary action).
    case submit
    /// Goes on without doing what the node offers ("Not now").
    case skip
    /// Sends (or reads out) the code again.
    case resend
    /// Goes back to choosing a method: another second factor, another way to get a code, something else to set up.
    case choose
    /// Gets the code the other way: a call instead of a text message, or the reverse.
    case otherMethod = "other_method"
    /// Uses a different phone number or email address.
    case change
    /// Unlocks an account locked by wrong passwords with a code sent by email. The sign-in node offers it once the
    /// name is blocked; a sign-in node of a flow started with a `login_hint` takes it before then too, so that an app
    /// may offer "Unlock your account" after a sign-in failed with `throttled`.
    case unlock
    /// Stops what the node is for and goes back to signing in.
    case cancel
    /// A link to the recovery flow ("Forgot your password?").
    case recover
    /// A link to the registration flow ("Create an account").
    case register
    /// Signs in with the authenticator app instead (a QR code to scan).
    case app
    /// Checks whether the authenticator app has approved the sign-in.
    case check
    /// Shows a new QR code for the authenticator app.
    case newCode = "new_code"
    /// Goes back from the authenticator app's QR code to the password.
    case password
    /// Uses a code sent by email instead of the password: to sign in (when the sign-on policy has `email_sign_in`),
    /// or to link another provider's identity.
    case emailCode = "email_code"
    /// Signs in with a passkey instead of the username and password.
    case passkey
    /// Sends a sign-in notification to the named account's authenticator app instead of asking for the password
    /// (where the client's sign-on policy has `push_sign_in`).
    case pushSignIn = "push"
    /// Refuses what the node asks (an application's access on the consent node): the flow ends with `access_denied`.
    case deny
    /// Hands another identity provider's answer (the query parameters the browser came back with) to the flow; it is
    /// submitted, never offered.
    case identityProviderCallback = "idp_callback"
    /// Hands an ID token the app obtained from another identity provider itself (the native Sign in with Apple sheet,
    /// Google's SDK) to the flow: values `provider` (its id), `id_token`, and optionally `name` (Apple gives the
    /// person's name to the app only, once). The token's `nonce` is the provider action's ``FlowAction/nonce``, or
    /// its SHA-256 in hex (as Apple's sheet is given it). Submitted on nodes that offer the provider, never offered.
    case identityProviderToken = "idp_token"

    /// The beginning of the id of an action that signs in with another identity provider: `idp:` and the provider's id.
    public static let identityProviderPrefix = "idp:"
}
