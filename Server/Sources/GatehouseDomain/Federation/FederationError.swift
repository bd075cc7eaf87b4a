import GatehouseFoundation

/// Why signing in with another identity provider did not work: ``message`` for the person, ``detail`` for the log.
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
    /// What the person reads, in their language; it names the provider and never a token.
    package var message: MessageReference
    package var detail: String

    package static func unavailable(_ provider: String, _ detail: String) -> Self {
        Self(reason: .unavailable, message: MessageReference("federation.unavailable", ["provider": provider]), detail: detail)
    }

    /// The provider refused; `provider` is its name, `nil` when the answer cannot be tied to one.
    package static func denied(_ provider: String?, error: String, description: String?) -> Self {
        let cancelled = error == "access_denied"
        let key =
            switch (cancelled, provider == nil) {
            case (true, false): "federation.cancelled"
            case (true, true): "federation.cancelled_unnamed"
            case (false, false): "federation.denied"
            case (false, true): "federation.denied_unnamed"
            }
        var arguments = cancelled ? [:] : ["error": error]
        arguments["provider"] = provider
        return Self(reason: .denied, message: MessageReference(key, arguments), detail: "\(error): \(description ?? "")")
    }

    package static func tokenRefused(_ provider: String, _ detail: String) -> Self {
        Self(reason: .tokenRefused, message: MessageReference("federation.token_refused", ["provider": provider]), detail: detail)
    }

    package static func invalidIdentity(_ provider: String, _ detail: String) -> Self {
        Self(reason: .invalidIdentity, message: MessageReference("federation.invalid_identity", ["provider": provider]), detail: detail)
    }

    /// The answer belongs to no sign-in this flow has waiting; `provider` is the name of the one it last went to, if any.
    package static func invalidState(_ provider: String?) -> Self {
        Self(
            reason: .invalidState,
            message: provider.map { MessageReference("federation.invalid_state", ["provider": $0]) } ?? MessageReference("federation.invalid_state_unnamed"),
            detail: "state did not match")
    }
}
