import GatehouseFoundation

/// What signing in takes, for every client or for one (`client_sign_on` in the configuration file).
public struct SignOnPolicy: Sendable, Codable, Equatable {
    /// When a second factor is asked for after the password.
    public enum SecondFactorRule: String, Sendable, Codable {
        /// The password alone.
        case off
        /// A second factor from users who enrolled one; the others sign in with the password.
        case ifEnrolled = "if_enrolled"
        /// Always; a user without a second factor enrolls one during sign-in.
        case required
    }

    /// When a second factor is asked for; ``SecondFactorRule/off`` by default.
    public var secondFactor = SecondFactorRule.off
    /// The second factors users may use; recovery codes come with TOTP.
    public var factors: [SecondFactor] = [.totp]
    /// The factors users may set up during sign-in (`enroll`): ``SecondFactor/sms`` and ``SecondFactor/voice`` are
    /// the two ways of a phone number. Each must be among ``factors``; `nil` (the default) enrolls every factor of
    /// ``factors`` that can be enrolled.
    public var enroll: [SecondFactor]?
    /// Wrong codes one step tolerates before the sign-in fails and must start over.
    public var maxCodeAttempts = 5
    /// Whether the sign-in page offers "Sign in with the app": a QR code approved in an authenticator app with a PIN.
    public var appLogin = false
    /// The sign-in node offers "Send a notification to my phone" for the name typed: the account's authenticator app,
    /// with pushes on, approves it as it approves a QR code (one factor, `swk` `pin`).
    public var pushSignIn = false
    /// Whether a passkey may sign in without the password (the sign-in node offers "Sign in with a passkey", and
    /// browsers offer saved passkeys in the username field). The passkey must verify the user, which makes the
    /// sign-in multi-factor.
    public var passkeySignIn = false
    /// Whether the sign-in node offers "Email me a sign-in code": a code and a link sent to the account's verified
    /// email address sign in without the password (one factor, `amr` `otp` and `email`; a second factor is still
    /// asked for by ``secondFactor``). With registration on, an address without an account gets one.
    public var emailSignIn = false
    /// Under ``SecondFactorRule/ifEnrolled``: whether users without a second factor are offered to enroll one
    /// after their password, with a "Not now" answer.
    public var optionalEnrollment = false
    /// Days a "Not now" keeps the offer away.
    public var enrollmentReminderDays = 30

    /// A policy with the given rule and the default factors and attempt limit.
    public init(secondFactor: SecondFactorRule = .off) {
        self.secondFactor = secondFactor
    }

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let section = try decoder.section(CodingKeys.self)
        try section.update(&secondFactor, .secondFactor)
        try section.update(&factors, .factors)
        try section.update(&enroll, .enroll)
        try section.update(&maxCodeAttempts, .maxCodeAttempts)
        try section.update(&appLogin, .appLogin)
        try section.update(&pushSignIn, .pushSignIn)
        try section.update(&passkeySignIn, .passkeySignIn)
        try section.update(&emailSignIn, .emailSignIn)
        try section.update(&optionalEnrollment, .optionalEnrollment)
        try section.update(&enrollmentReminderDays, .enrollmentReminderDays)
    }

    /// The factors users may set up during sign-in, in the order they are offered.
    package var enrollable: [SecondFactor] {
        enroll ?? factors.filter(SecondFactor.enrollable.contains)
    }

    package func validate(_ name: String) throws {
        for factor in enroll ?? [] {
            guard SecondFactor.enrollable.contains(factor) else {
                throw ConfigurationError(key: "\(name).enroll", "\(factor.rawValue) cannot be enrolled on its own (recovery codes come with totp).")
            }
            guard factors.contains(factor) else {
                throw ConfigurationError(key: "\(name).enroll", "\(factor.rawValue) must also be listed in factors, or it could be set up but never used.")
            }
        }
        guard !enrollable.isEmpty || secondFactor == .off else {
            let key = enroll == nil ? "factors" : "enroll"
            throw ConfigurationError(key: "\(name).\(key)", "must include a factor users can enroll (totp, email, sms or voice).")
        }
        guard (1...20).contains(maxCodeAttempts) else { throw ConfigurationError(key: "\(name).max_code_attempts", "must be between 1 and 20.") }
        guard (1...3650).contains(enrollmentReminderDays) else {
            throw ConfigurationError(key: "\(name).enrollment_reminder_days", "must be between 1 and 3650.")
        }
        if optionalEnrollment, secondFactor != .ifEnrolled {
            throw ConfigurationError(
                key: "\(name).optional_enrollment", "applies only with second_factor if_enrolled (required enrolls everyone; off asks no one).")
        }
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case factors
        case enroll
        case secondFactor = "second_factor"
        case maxCodeAttempts = "max_code_attempts"
        case appLogin = "app_login"
        case pushSignIn = "push_sign_in"
        case passkeySignIn = "passkey_sign_in"
        case emailSignIn = "email_sign_in"
        case optionalEnrollment = "optional_enrollment"
        case enrollmentReminderDays = "enrollment_reminder_days"
    }
}
