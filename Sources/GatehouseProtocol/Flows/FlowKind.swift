/// What a flow is for. Each starts at its own endpoint (`POST /flows/{kind}`) and, like a sign-in, ends with
/// an authorization code: a new account or a reset password leaves the person signed in.
public enum FlowKind: String, Codable, Sendable, CaseIterable {
    /// Sign in (with whatever second factor, password change or unlock the server asks for on the way).
    case login
    /// Create an account: profile, password, and the email (and phone) confirmed by code.
    case registration
    /// Reset a forgotten password with a code sent by email or SMS (and any enrolled second factor).
    case recovery
    /// Manage two-step verification: sign in with the password and any enrolled second factor, then set up
    /// (or replace) the authenticator app, or make new recovery codes.
    case enrollment
}
