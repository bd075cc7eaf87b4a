/// The texts Gatehouse sends. Short enough for one SMS; the code comes first so phones can offer to fill it in.
enum MessageTemplate: String, Sendable {
    case signInCode = "sign_in_code"
    case verificationCode = "verification_code"
    case recoveryCode = "recovery_code"
    case unlockCode = "unlock_code"
    /// Sent instead of a verification code when someone tries to register with an address that has an account.
    case accountExists = "account_exists"
    /// Told after the account's authenticator app was replaced, so its owner notices a change they did not make.
    case authenticatorChanged = "authenticator_changed"
    /// Told after new recovery codes replaced the old ones.
    case recoveryCodesChanged = "recovery_codes_changed"
    /// Told, at the old number and the email address, after another phone number took over the account's codes.
    case phoneChanged = "phone_changed"
    /// Told, at the old address, after another email address became the account's.
    case emailChanged = "email_changed"
    /// Told after a passkey was added to the account.
    case passkeyAdded = "passkey_added"
    /// Confirms a new authenticator app's device identity with a code typed into the app.
    case deviceCode = "device_code"
    /// Confirms a new authenticator app's device identity with a link (passed as the code).
    case deviceLink = "device_link"
    /// Told when wrong codes or passwords blocked a journey of the account for a while (the code is the journey's name).
    case guessesBlocked = "guesses_blocked"

    /// Warnings to the account's owner about something that happened to it. They are counted against their own
    /// hourly budget, apart from codes, which anyone who knows an address can have sent to it.
    static let securityNotices: [MessageTemplate] = [
        .authenticatorChanged, .recoveryCodesChanged, .phoneChanged, .emailChanged, .passkeyAdded, .guessesBlocked,
    ]

    var isSecurityNotice: Bool { Self.securityNotices.contains(self) }

    /// The subject and body for `code` on `channel`: for a call, the text a voice gateway reads out, with the code
    /// spoken digit by digit, twice.
    func render(code: String, minutes: Int64, service: String, on channel: MessageChannel) -> (subject: String, body: String) {
        let text = render(code: code, minutes: minutes, service: service)
        guard channel == .voice, !code.isEmpty else { return text }
        let spoken = code.filter { !$0.isWhitespace }.map(String.init).joined(separator: ", ")
        return (text.subject, text.body.replacingOccurrences(of: code, with: spoken) + " Again, your code is: \(spoken).")
    }

    /// The subject and body for `code` (empty for the notices: ``accountExists`` and the changes), valid for `minutes`, from the service at `issuer`.
    func render(code: String, minutes: Int64, service: String) -> (subject: String, body: String) {
        switch self {
        case .signInCode:
            (
                "Your sign-in code",
                "\(code) is your \(service) sign-in code. It expires in \(minutes) minutes. If you are not signing in, someone else knows your password: change it."
            )
        case .verificationCode:
            ("Confirm your address", "\(code) is your \(service) verification code. It expires in \(minutes) minutes.")
        case .recoveryCode:
            (
                "Reset your password",
                "\(code) is your \(service) password reset code. It expires in \(minutes) minutes. If you did not ask to reset your password, ignore this message."
            )
        case .unlockCode:
            (
                "Unlock your account",
                "\(code) is your \(service) account unlock code. It expires in \(minutes) minutes. Your account was locked after several failed sign-ins."
            )
        case .accountExists:
            (
                "You already have an account",
                "Someone tried to create a \(service) account with this address, which already has one. If it was you, sign in or reset your password instead. If not, you can ignore this message."
            )
        case .authenticatorChanged:
            (
                "Your authenticator app changed",
                "An authenticator app was set up for your \(service) account, with new recovery codes; codes from any app or recovery codes you had before no longer work. If this wasn't you, reset your password now."
            )
        case .deviceCode:
            (
                "Confirm your new device",
                "\(code) is the code that confirms a new \(service) authenticator app. It expires in \(minutes) minutes. If you did not set up a device, ignore this message: without the code it cannot sign in."
            )
        case .deviceLink:
            (
                "Confirm your new device",
                "Open \(code) to confirm a new \(service) authenticator app. The link expires in \(minutes) minutes. If you did not set up a device, ignore this message: without the link it cannot sign in."
            )
        case .guessesBlocked:
            (
                "Too many wrong attempts on your account",
                "There were too many wrong attempts at \(code) for your \(service) account, so it is paused for \(minutes) minutes. If this wasn't you, someone may be trying to get into your account: change your password and keep your codes to yourself."
            )
        case .phoneChanged:
            (
                "Your phone number changed",
                "Another phone number now gets the sign-in codes for your \(service) account. If this wasn't you, reset your password now."
            )
        case .passkeyAdded:
            (
                "A passkey was added to your account",
                "A new passkey can now sign in to your \(service) account. If this wasn't you, reset your password now and remove the passkey."
            )
        case .emailChanged:
            (
                "Your email address changed",
                "Another email address now gets the messages and sign-in codes for your \(service) account. If this wasn't you, tell the service's administrators now."
            )
        case .recoveryCodesChanged:
            (
                "Your recovery codes changed",
                "New recovery codes were made for your \(service) account; the previous ones no longer work. If this wasn't you, reset your password now."
            )
        }
    }
}
