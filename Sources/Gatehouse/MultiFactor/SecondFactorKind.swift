/// A second factor as the server names it, e.g. `totp` or `recovery_code`. New kinds arrive as values,
/// not as breaking changes.
public struct SecondFactorKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A code from an authenticator app (TOTP).
    public static let totp = SecondFactorKind(rawValue: "totp")
    /// One of the single-use recovery codes saved at enrollment.
    public static let recoveryCode = SecondFactorKind(rawValue: "recovery_code")
    /// A code sent by email.
    public static let email = SecondFactorKind(rawValue: "email")
    /// A code sent by text message.
    public static let sms = SecondFactorKind(rawValue: "sms")
    /// A code read out in a phone call.
    public static let voice = SecondFactorKind(rawValue: "voice")
    /// A passkey: the device's screen lock, a phone nearby, or a security key (through a ``PasskeyProvider``).
    public static let passkey = SecondFactorKind(rawValue: "passkey")
    /// Approving a push in the account's authenticator app (``MultifactorLogin/Step/approveOnDevice(number:problem:)``).
    public static let push = SecondFactorKind(rawValue: "push")
    /// A phone number, when choosing what to set up: its codes come by ``sms`` or ``voice``.
    public static let phone = SecondFactorKind(rawValue: "phone")

    public var description: String { rawValue }
}
