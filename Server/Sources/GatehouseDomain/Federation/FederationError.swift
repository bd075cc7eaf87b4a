/// Why signing in with another identity provider did not work. ``message`` is shown to the person (it names the
/// provider and never a token); ``detail`` goes to the log.
package struct FederationError: Error, Sendable, Equatable {
    package enum Reason: String, Sendable {
        /// The provider could not be reached or answered something unreadable.
        case unavailable = "idp_unavailable"
        /// The person said no at the provider, or the provider refused the request.
        case denied = "idp_denied"
        /// The token endpoint refused the code.
        case tokenRefused = "idp_token_refused"
        /// The ID token (or profile) failed validation.
        case invalidIdentity = "idp_invalid_identity"
        /// The answer does not belong to a sign-in this flow started (wrong, reused or missing `state`).
        case invalidState = "idp_invalid_state"
    }

    package var reason: Reason
    package var message: String
    package var detail: String

    package static func unavailable(_ provider: String, _ detail: String) -> Self {
        Self(reason: .unavailable, message: "\(provider) could not be reached. Try again in a moment, or sign in another way.", detail: detail)
    }

    /// The provider refused; `provider` is its name, `nil` when the answer cannot be tied to one.
    package static func denied(_ provider: String?, error: String, description: String?) -> Self {
        let message =
            error == "access_denied"
            ? "Signing in with \(provider ?? "the identity provider") was cancelled or not allowed."
            : "\(provider ?? "The identity provider") did not sign you in (\(error)). Try again, or sign in another way."
        return Self(reason: .denied, message: message, detail: "\(error): \(description ?? "")")
    }

    package static func tokenRefused(_ provider: String, _ detail: String) -> Self {
        Self(reason: .tokenRefused, message: "\(provider) did not confirm the sign-in. Try again.", detail: detail)
    }

    package static func invalidIdentity(_ provider: String, _ detail: String) -> Self {
        Self(reason: .invalidIdentity, message: "The sign-in from \(provider) could not be verified, so it was refused. Try again.", detail: detail)
    }

    /// The answer belongs to no sign-in this flow has waiting; `provider` is the name of the one it last went to, if any.
    package static func invalidState(_ provider: String?) -> Self {
        Self(
            reason: .invalidState,
            message:
                "This answer from \(provider ?? "the identity provider") does not belong to this sign-in (it was used already, or started in another window). Try again.",
            detail: "state did not match")
    }
}
