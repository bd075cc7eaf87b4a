/// Which kind of screen a node is (``FlowNode/category``): what an app routes on, whatever the node's id. The
/// server sends only these; the SDK's `SignInStatus` has a case for each.
public enum FlowCategory: String, Codable, Sendable, CaseIterable {
    /// Username and password (`sign_in`).
    case signIn = "sign_in"
    /// Choose which enrolled second factor to use (`mfa_required`).
    case mfaRequired = "mfa_required"
    /// Enter the code of a second factor (`mfa_challenge`).
    case mfaChallenge = "mfa_challenge"
    /// No second factor is enrolled: choose one to set up; when the node offers "Not now" (`skip`), setting one up is
    /// only offered (`mfa_enrollment_required`).
    case mfaEnrollmentRequired = "mfa_enrollment_required"
    /// Enroll a second factor, or save recovery codes (`mfa_enrollment`).
    case mfaEnrollment = "mfa_enrollment"
    /// The password expires soon; change it or skip (`password_warning`).
    case passwordWarning = "password_warning"
    /// The password expired and must be changed (`password_expired`).
    case passwordExpired = "password_expired"
    /// Too many wrong passwords: unlock with a code, or wait (`locked_out`).
    case lockedOut = "locked_out"
    /// Recovering a forgotten password (`recovery`).
    case recovery
    /// Creating an account: profile and password (`registration`).
    case registration
    /// Confirming an email address or phone number with a code sent to it (`verification`).
    case verification
    /// Signing in by scanning a QR code with the authenticator app (`app_login`).
    case appLogin = "app_login"
    /// Allow or deny a third-party application what it asks for (`consent`); ``FlowNode/consent`` names it and its scopes.
    case consent
}
