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
    /// The second factors users may use and enroll; recovery codes come with TOTP.
    public var factors: [SecondFactor] = [.totp]
    /// Wrong codes one step tolerates before the sign-in fails and must start over.
    public var maxCodeAttempts = 5
    /// Whether the sign-in page offers "Sign in with the app": a QR code approved in an authenticator app with a PIN.
    public var appLogin = false
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
        try section.update(&maxCodeAttempts, .maxCodeAttempts)
        try section.update(&appLogin, .appLogin)
        try section.update(&optionalEnrollment, .optionalEnrollment)
        try section.update(&enrollmentReminderDays, .enrollmentReminderDays)
    }

    func validate(_ name: String) throws {
        guard factors.contains(where: SecondFactor.enrollable.contains) || secondFactor == .off else {
            throw ConfigurationError(key: "\(name).factors", "must include a factor users can enroll (totp).")
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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case factors
        case secondFactor = "second_factor"
        case maxCodeAttempts = "max_code_attempts"
        case appLogin = "app_login"
        case optionalEnrollment = "optional_enrollment"
        case enrollmentReminderDays = "enrollment_reminder_days"
    }
}
