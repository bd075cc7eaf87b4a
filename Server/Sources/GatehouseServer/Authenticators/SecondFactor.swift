/// A way to prove who you are after the password.
public enum SecondFactor: String, Sendable, Codable, CaseIterable {
    /// A time-based code from an authenticator app (RFC 6238).
    case totp
    /// One of the single-use codes handed out when TOTP was enrolled; a fallback, never enrolled on its own.
    case recoveryCode = "recovery_code"

    /// How the choice reads on a node.
    var label: String {
        switch self {
        case .totp: "Authenticator app"
        case .recoveryCode: "Recovery code"
        }
    }

    /// The ID token's `amr` value (RFC 8176) for this factor.
    var methodReference: String {
        switch self {
        case .totp, .recoveryCode: "otp"
        }
    }

    /// Factors a user can enroll during sign-in.
    static let enrollable: [SecondFactor] = [.totp]
}
