/// A step of a flow: the node a flow is at (``FlowNode/id``). The raw values are the node ids on the wire, so the
/// server, the SDK, the terminal, the hosted pages and the OpenAPI document name a step the same way; a new step is a
/// new case, and the compiler lists every switch that must handle it.
///
/// An app that renders nodes generically routes on ``FlowNode/category``; one that words a step its own way switches
/// on ``FlowNode/step`` (`nil` for a step added by a newer server).
public enum FlowStep: String, Codable, Sendable, CaseIterable {
    // Signing in with a password.
    /// Username and password on one node.
    case credentials = "login.credentials"
    /// The username first (identify-first sign-in).
    case identify = "login.identify"
    /// The password, after ``identify``.
    case password = "login.password"
    // Signing in with a code (and a link) sent by email, without a password.
    /// The email address to send a sign-in code to.
    case emailSignIn = "login.email"
    /// The code sent to that address; the link in the message submits it in the browser that asked.
    case emailSignInCode = "login.email_code"
    // Signing in with another identity provider: proving an existing account to link the new identity to it.
    /// Sign in to an existing account once to link another provider's identity to it.
    case linkAccount = "login.idp.link"
    /// A code sent to the account's email address links the other provider's identity instead.
    case linkCode = "login.idp.link_code"
    // Second factors.
    /// Choose which enrolled second factor to use.
    case chooseFactor = "mfa.choose"
    /// Use a passkey as the second factor.
    case passkey = "mfa.passkey"
    /// A code from an authenticator app.
    case totp = "mfa.totp"
    /// One of the saved recovery codes.
    case recoveryCode = "mfa.recovery_code"
    /// No second factor yet: choose one to set up (or, when only offered, skip).
    case enrollOffer = "mfa.enroll.choose"
    /// Set up an authenticator app.
    case enrollTOTP = "mfa.enroll.totp"
    /// Create a passkey.
    case enrollPasskey = "mfa.enroll.passkey"
    /// Choose how a phone gets its codes (text or call).
    case enrollMethod = "mfa.enroll.method"
    /// Enter the phone number to set up.
    case enrollPhone = "mfa.enroll.phone"
    /// The code sent to the phone being set up.
    case enrollPhoneCode = "mfa.enroll.phone_code"
    /// Enter the email address to get codes at.
    case enrollEmail = "mfa.enroll.email"
    /// The code sent to the email address being set up.
    case enrollEmailCode = "mfa.enroll.email_code"
    /// Recovery codes, shown once.
    case recoveryCodes = "mfa.enroll.recovery_codes"
    /// A code sent by email as the second factor.
    case emailCode = "mfa.email"
    /// A code sent by text message as the second factor.
    case smsCode = "mfa.sms"
    /// A code read out in a phone call as the second factor.
    case voiceCode = "mfa.voice"
    /// A push sent to the authenticator app: the node shows a number, which the person picks in the app before
    /// entering the PIN; the node's `check` goes on once approved.
    case push = "mfa.push"
    // Registration.
    /// The new account's profile and password.
    case register = "register.profile"
    /// The code sent to the new account's email address.
    case verifyEmail = "register.verify_email"
    /// The code sent to the new account's phone number.
    case verifyPhone = "register.verify_phone"
    // Recovery and unlocking.
    /// The username or email address of the account to recover.
    case recoveryIdentify = "recovery.identify"
    /// Where to send the recovery code.
    case recoveryChoose = "recovery.choose"
    /// The recovery code.
    case resetCode = "recovery.code"
    /// The new password, after the recovery code (and the second factor, when the account has one).
    case recoveryPassword = "recovery.password"
    /// The code that unlocks an account locked by wrong passwords.
    case unlockCode = "unlock.code"
    // Passwords that must change before the flow finishes.
    /// The password expires soon: change it or skip.
    case passwordWarning = "password.warning"
    /// The password has expired: change it.
    case passwordExpired = "password.expired"
    // Changing two-step verification.
    /// What to change about two-step verification.
    case enrollChoose = "enroll.choose"
    // Signing in with the authenticator app (QR code).
    /// A QR code to scan and approve with the authenticator app.
    case appLogin = "login.app"
    /// A notification sent to the named account's authenticator app: the node shows a number, which the person
    /// picks in the app before entering the PIN; `check` goes on once approved.
    case pushSignIn = "login.push"
    // Consent, for an application the operator marked third-party.
    /// Allow or deny the application what it asks for (``FlowNode/consent`` says who asks and for what).
    case consent = "consent"

    /// The actions a node of this step may offer, in the order it offers them. A node offers some of them, as the
    /// account and the policy allow (``FlowAction/knownID``); steps where ``offersIdentityProviders`` is true
    /// offer sign-in with each configured provider too (ids beginning with ``FlowActionID/identityProviderPrefix``).
    public var actions: [FlowActionID] {
        switch self {
        case .credentials, .identify: [.submit, .passkey, .emailCode, .unlock, .app, .pushSignIn, .recover, .register]
        case .password: [.submit, .emailCode, .unlock, .app, .pushSignIn, .recover, .register]
        case .emailSignIn: [.submit, .cancel]
        case .emailSignInCode: [.submit, .resend, .cancel]
        case .linkAccount: [.submit, .emailCode, .cancel]
        case .linkCode, .unlockCode: [.submit, .resend, .cancel]
        case .chooseFactor, .enrollTOTP, .recoveryCodes, .recoveryPassword, .passwordExpired, .enrollChoose: [.submit]
        case .passkey, .totp, .recoveryCode, .enrollMethod, .enrollPhone, .enrollEmail: [.submit, .choose]
        case .enrollOffer, .passwordWarning: [.submit, .skip]
        case .enrollPasskey: [.submit, .skip, .choose]
        case .enrollPhoneCode: [.submit, .resend, .otherMethod, .change]
        case .enrollEmailCode: [.submit, .resend, .change]
        case .emailCode, .resetCode: [.submit, .resend, .choose]
        case .smsCode, .voiceCode: [.submit, .resend, .otherMethod, .choose]
        case .register: [.submit, .cancel]
        case .verifyEmail: [.submit, .resend]
        case .verifyPhone: [.submit, .resend, .skip]
        case .recoveryIdentify, .recoveryChoose: [.submit, .cancel]
        case .appLogin: [.check, .newCode, .password]
        case .pushSignIn: [.check, .resend, .password]
        case .push: [.check, .resend, .choose]
        case .consent: [.submit, .deny]
        }
    }

    /// Whether the node offers signing in with another identity provider beside its own ``actions``.
    public var offersIdentityProviders: Bool {
        switch self {
        case .credentials, .identify, .register: true
        case .password, .emailSignIn, .emailSignInCode, .linkAccount, .linkCode, .chooseFactor, .passkey, .totp, .recoveryCode, .enrollOffer, .enrollTOTP,
            .enrollPasskey, .enrollMethod,
            .enrollPhone, .enrollPhoneCode, .enrollEmail, .enrollEmailCode, .recoveryCodes, .emailCode, .smsCode, .voiceCode, .verifyEmail,
            .verifyPhone, .recoveryIdentify, .recoveryChoose, .resetCode, .recoveryPassword, .unlockCode, .passwordWarning, .passwordExpired,
            .enrollChoose, .appLogin, .consent, .push, .pushSignIn:
            false
        }
    }

    /// Whether `action` (a ``FlowAction/id``) is one this step may offer.
    public func offers(_ action: String) -> Bool {
        if let known = FlowActionID(rawValue: action) { return actions.contains(known) }
        return offersIdentityProviders && action.hasPrefix(FlowActionID.identityProviderPrefix)
    }
}
