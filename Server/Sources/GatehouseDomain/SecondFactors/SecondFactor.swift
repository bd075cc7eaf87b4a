import GatehouseFoundation
import GatehouseProtocol

/// A way to prove who you are after the password.
public enum SecondFactor: String, Sendable, Codable, CaseIterable {
    /// A passkey (WebAuthn): the device's screen lock, a phone nearby, or a security key.
    case passkey
    /// A time-based code from an authenticator app (RFC 6238).
    case totp
    /// A one-time code sent to the verified email address.
    case email
    /// A one-time code sent by text message to the verified phone number.
    case sms
    /// A one-time code read out in a phone call to the verified phone number.
    case voice
    /// One of the single-use codes handed out when TOTP was enrolled; a fallback, never enrolled on its own.
    case recoveryCode = "recovery_code"
    /// A push to a registered authenticator app: the person picks the number the browser shows and enters the PIN.
    /// Set up in the app (a device identity with a push token), never in a flow.
    case push

    /// The key of the factor's name in the message catalogs.
    package var labelKey: String {
        switch self {
        case .passkey: "factor.passkey"
        case .totp: "factor.totp"
        case .email: "factor.email"
        case .sms: "factor.sms"
        case .voice: "factor.voice"
        case .recoveryCode: "factor.recovery_code"
        case .push: "factor.push"
        }
    }

    /// The ID token's `amr` value (RFC 8176) for this factor.
    package var methodReference: String {
        switch self {
        // RFC 8176: proof of possession of a hardware-secured key; a synced passkey says `swk` instead (see
        // ``Passkey/methodReferences(userVerified:)``).
        case .passkey: "hwk"
        case .totp, .recoveryCode, .email: "otp"
        case .sms: "sms"
        // RFC 8176: confirmation by telephone call.
        case .voice: "tel"
        // RFC 8176: a software-secured key, unlocked by a PIN the server checked (``pushMethods``).
        case .push: "swk"
        }
    }

    /// The channel a code for this factor is sent on, if it is sent.
    package var channel: MessageChannel? {
        switch self {
        case .email: .email
        case .sms: .sms
        case .voice: .voice
        case .passkey, .totp, .recoveryCode, .push: nil
        }
    }

    /// Factors a user can enroll during sign-in: a passkey, an authenticator app, a phone number (by text message or
    /// call), or the email address.
    package static let enrollable: [SecondFactor] = [.passkey, .totp, .email, .sms, .voice]

    /// Whether codes for this factor go to the account's phone number.
    package var usesPhone: Bool { self == .sms || self == .voice }
}

extension MessageChannel {
    /// The factor a code on this channel proves.
    package var factor: SecondFactor {
        switch self {
        case .email: .email
        case .sms: .sms
        case .voice: .voice
        }
    }

    /// How a node names a code that came on this channel.
    package var codeSource: CodeSource {
        switch self {
        case .email: .email
        case .sms: .sms
        case .voice: .voice
        }
    }
}
