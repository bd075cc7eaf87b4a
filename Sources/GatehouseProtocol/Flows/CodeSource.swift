/// Where the code a node asks for comes from: the second factor and the way it reached the person. A node that asks
/// for a code names it (``FlowNode/codeSource``), so an app words the step and offers autofill without reading step ids.
public enum CodeSource: ExtensibleWireValue {
    /// An authenticator app's time-based code (TOTP, RFC 6238).
    case totp
    /// A code sent by text message.
    case sms
    /// A code read out in a phone call.
    case voice
    /// A code sent by email.
    case email
    /// One of the recovery codes the person saved.
    case recoveryCode
    /// A source from a newer server, with its wire name.
    case unknown(String)

    public static let known: [CodeSource] = [.totp, .sms, .voice, .email, .recoveryCode]

    /// The wire name.
    public var rawValue: String {
        switch self {
        case .totp: "totp"
        case .sms: "sms"
        case .voice: "voice"
        case .email: "email"
        case .recoveryCode: "recovery_code"
        case .unknown(let name): name
        }
    }

    /// Whether the code was delivered (by email, text message or call), so that the node may offer to send a new one.
    public var isDelivered: Bool { self == .sms || self == .voice || self == .email }
}
