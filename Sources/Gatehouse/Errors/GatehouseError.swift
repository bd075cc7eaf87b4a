import Foundation

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

    /// What happened and what to do, in English: for logs.
    public var description: String { localizedDescription(in: ["en"]) }

    /// What happened and what to do, in the first of `languages` (BCP 47 tags, most preferred first) the SDK speaks,
    /// else English: for the person using the app.
    public func localizedDescription(in languages: [String]) -> String {
        func say(_ key: String, _ arguments: String...) -> String { StringCatalog.text(key, arguments, languages: languages) }
        return switch self {
        case .signedOut: say("error.signed_out")
        case .invalidCredentials: say("error.invalid_credentials")
        case .throttled: say("error.throttled")
        case .locked: say("error.locked")
        case .invalidInput(let messages):
            messages.isEmpty ? say("error.invalid_input") : messages.map(\.text).joined(separator: " ")
        case .flowExpired: say("error.flow_expired")
        case .alreadyAnswered: say("error.already_answered")
        case .unsupportedStep(let node): say("error.unsupported_step", node)
        case .network(let reason): say("error.network", reason.summary)
        case .provider(let status, let error, let description): say("error.provider", "\(status)", error, description.map { ": \($0)" } ?? "")
        case .unexpectedResponse(let status): say("error.unexpected_response", "\(status)")
        case .discovery(let error): error.localizedDescription(in: languages)
        case .invalidIDToken(let error): say("error.invalid_id_token", error.description)
        case .storage(let reason): say("error.storage", reason.summary)
        case .deviceSignInDenied: say("error.device_sign_in_denied")
        case .deviceCodeExpired: say("error.device_code_expired")
        case .cancelled: say("error.cancelled")
        case .dpopKey(let reason): say("error.dpop_key", reason.summary)
        case .browserRedirect(let error): error.localizedDescription(in: languages)
        case .userAgent(let reason): say("error.user_agent", reason.summary)
        }
    }
}

extension GatehouseError: LocalizedError {
    /// ``localizedDescription(in:)`` in the languages the person prefers (`Locale.preferredLanguages`).
    public var errorDescription: String? { localizedDescription(in: Locale.preferredLanguages) }
}
