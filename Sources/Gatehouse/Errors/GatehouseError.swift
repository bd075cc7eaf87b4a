/// What went wrong between the app and the provider, and what the app can do about it.
///
/// Every case says in its ``description`` what happened and what to do next; none ever contains a
/// password, a code or a token, so descriptions are safe to log and to show.
public enum GatehouseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The session ended at the provider (revoked, expired, or its refresh token was replayed): sign in again.
    case signedOut
    /// The username or password is wrong. The provider never says which, so no account can be discovered.
    case invalidCredentials
    /// Too many failed attempts; wait a few minutes before trying again.
    case throttled
    /// The account is locked; only an administrator (or, later, a recovery flow) can unlock it.
    case locked
    /// Values the node's rules reject, by field key; fix them and submit again.
    case invalidInput([FlowMessage])
    /// The sign-in expired, was finished already, or is unknown: start a new one.
    case flowExpired
    /// Another submission of the same step got there first (a second tap, another window): nothing of this one was
    /// applied. The error node's retry is the step the sign-in is at now; show it.
    case alreadyAnswered
    /// The flow asks for a step this helper cannot answer (node id); drive it with ``ContinueNode`` instead.
    case unsupportedStep(String)
    /// The provider could not be reached: no connection, a wrong URL, or a timeout.
    case network(ErrorCause)
    /// The provider answered with an OAuth error.
    case provider(status: Int, error: String, description: String?)
    /// The provider answered something the SDK cannot read.
    case unexpectedResponse(status: Int)
    /// The provider's metadata could not be used.
    case discovery(DiscoveryError)
    /// The ID token failed validation; the sign-in was refused to protect the user.
    case invalidIDToken(IDTokenValidationError)
    /// Reading or writing the token storage failed.
    case storage(ErrorCause)
    /// The person denied the device's sign-in on the other device (RFC 8628 `access_denied`).
    case deviceSignInDenied
    /// The device's code expired before anyone approved it (RFC 8628 `expired_token`): start again for a new code.
    case deviceCodeExpired
    /// The app cancelled the task that was waiting.
    case cancelled
    /// The DPoP key could not be made, restored or used (``GatehouseConfiguration/dpop``).
    case dpopKey(ErrorCause)
    /// The browser came back with an answer the sign-in cannot accept: the provider's refusal (`access_denied`,
    /// `login_required`, …) or one that does not belong to this request (its `state` or `iss`).
    case browserRedirect(BrowserRedirectError)
    /// The browser could not be shown, or did not come back in time (``BrowserUserAgent``).
    case userAgent(ErrorCause)

    /// Whether the user has to sign in (again) before the app can go on.
    public var requiresSignIn: Bool {
        switch self {
        case .signedOut, .flowExpired: true
        default: false
        }
    }

    /// The OAuth error code the provider answered with, if any.
    public var oauthError: String? {
        if case .provider(_, let error, _) = self { return error }
        return nil
    }

    public var description: String {
        switch self {
        case .signedOut: "The session has ended; sign in again."
        case .invalidCredentials: "The username or password is incorrect."
        case .throttled: "Too many failed attempts. Wait a few minutes, then try again."
        case .locked: "This account is locked. Contact your administrator."
        case .invalidInput(let messages):
            messages.isEmpty ? "Some values are not valid." : messages.map(\.text).joined(separator: " ")
        case .flowExpired: "This sign-in has expired. Start again."
        case .alreadyAnswered: "This step was already answered, perhaps by a second tap. The sign-in goes on from where that answer left it."
        case .unsupportedStep(let node): "The sign-in needs a step (\(node)) that this helper cannot complete; drive the flow node by node."
        case .network(let reason): "The identity provider could not be reached (\(reason)). Check the connection and the issuer URL."
        case .provider(let status, let error, let description):
            "The identity provider answered HTTP \(status) \(error)\(description.map { ": \($0)" } ?? "")."
        case .unexpectedResponse(let status): "The identity provider answered HTTP \(status) with a body the SDK cannot read."
        case .discovery(let error): error.description
        case .invalidIDToken(let error): "The ID token was refused: \(error)"
        case .storage(let reason): "The token storage failed: \(reason)."
        case .deviceSignInDenied: "The sign-in was denied on the other device."
        case .deviceCodeExpired: "The code expired before the sign-in was approved. Start again for a new code."
        case .cancelled: "The sign-in was cancelled."
        case .dpopKey(let reason): "The key that binds the tokens could not be used (\(reason)). Sign in again."
        case .browserRedirect(let error): error.description
        case .userAgent(let reason): "The browser sign-in did not complete (\(reason)). Try again."
        }
    }
}
