import GatehouseProtocol

/// Which screen a sign-in is at, for routing in a flow coordinator: derived from the node's category, so an
/// app can switch view controllers (or SwiftUI views) without knowing node ids.
public enum SignInStatus: Sendable, Hashable {
    /// Username and password (category `sign_in`).
    case signIn
    /// Choose which enrolled second factor to use (`mfa_required`).
    case mfaRequired
    /// Enter the code of a second factor (`mfa_challenge`).
    case mfaChallenge
    /// No second factor is enrolled: choose one to set up, or skip it when only offered (`mfa_enrollment_required`).
    case mfaEnrollmentRequired
    /// Enroll a second factor, or save recovery codes (`mfa_enrollment`).
    case mfaEnrollment
    /// The password expires soon; change it or skip (`password_warning`).
    case passwordWarning
    /// The password expired and must be changed (`password_expired`).
    case passwordExpired
    /// The account is locked; unlock it or wait (`locked_out`).
    case lockedOut
    /// Recovering a forgotten password (`recovery`).
    case recovery
    /// Creating an account: profile and password (`registration`).
    case registration
    /// Confirming an email address or phone number with a code sent to it (`verification`).
    case verification
    /// Scan a QR code with the authenticator app and approve there (`app_login`).
    case appLogin
    /// Allow or deny a third-party application what it asks for (`consent`).
    case consent
    /// Signed in.
    case success
    /// A category this SDK does not know yet; render the node generically.
    case other(String)

    /// The status a node of `category` (the server's `FlowNode.category`) stands for.
    public init(category: String) {
        guard let known = FlowCategory(rawValue: category) else {
            self = .other(category)
            return
        }
        // Exhaustive: a category added to the protocol does not compile here until it has a case.
        self =
            switch known {
            case .signIn: .signIn
            case .mfaRequired: .mfaRequired
            case .mfaChallenge: .mfaChallenge
            case .mfaEnrollmentRequired: .mfaEnrollmentRequired
            case .mfaEnrollment: .mfaEnrollment
            case .passwordWarning: .passwordWarning
            case .passwordExpired: .passwordExpired
            case .lockedOut: .lockedOut
            case .recovery: .recovery
            case .registration: .registration
            case .verification: .verification
            case .appLogin: .appLogin
            case .consent: .consent
            }
    }
}

extension ContinueNode {
    /// The screen this node is, for routing.
    public var status: SignInStatus { SignInStatus(category: category) }
}

extension Node {
    /// The screen to show: the node's for a continue or error node, ``SignInStatus/success`` once signed in,
    /// `nil` after a failure (start over).
    public var status: SignInStatus? {
        switch self {
        case .continue(let node): node.status
        case .error(let error): error.retry.status
        case .success: .success
        case .failure: nil
        }
    }
}
