/// A step of a flow: the node a flow is at. The raw values are the node ids on the wire, so apps, the OpenAPI
/// document and the hosted pages see the same ids whatever the code calls them; a new step is a new case, and
/// the compiler lists every switch that must handle it.
enum FlowStep: String, Codable, Sendable, CaseIterable {
    // Signing in with a password.
    case credentials = "login.credentials"
    case identify = "login.identify"
    case password = "login.password"
    // Signing in with another identity provider: proving an existing account to link the new identity to it.
    case linkAccount = "login.idp.link"
    case linkCode = "login.idp.link_code"
    // Second factors.
    case chooseFactor = "mfa.choose"
    case passkey = "mfa.passkey"
    case totp = "mfa.totp"
    case recoveryCode = "mfa.recovery_code"
    case enrollOffer = "mfa.enroll.choose"
    case enrollTOTP = "mfa.enroll.totp"
    case enrollPasskey = "mfa.enroll.passkey"
    case enrollMethod = "mfa.enroll.method"
    case enrollPhone = "mfa.enroll.phone"
    case enrollPhoneCode = "mfa.enroll.phone_code"
    case enrollEmail = "mfa.enroll.email"
    case enrollEmailCode = "mfa.enroll.email_code"
    case recoveryCodes = "mfa.enroll.recovery_codes"
    case emailCode = "mfa.email"
    case smsCode = "mfa.sms"
    case voiceCode = "mfa.voice"
    // Registration.
    case register = "register.profile"
    case verifyEmail = "register.verify_email"
    case verifyPhone = "register.verify_phone"
    // Recovery and unlocking.
    case recoveryIdentify = "recovery.identify"
    case recoveryChoose = "recovery.choose"
    case resetCode = "recovery.code"
    case recoveryPassword = "recovery.password"
    case unlockCode = "unlock.code"
    // Passwords that must change before the flow finishes.
    case passwordWarning = "password.warning"
    case passwordExpired = "password.expired"
    // Changing two-step verification.
    case enrollChoose = "enroll.choose"
    // Signing in with the authenticator app (QR code).
    case appLogin = "login.app"
}
