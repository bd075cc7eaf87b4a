/// Where a message goes: an email address or a phone number.
public enum MessageChannel: String, Sendable, Codable, CaseIterable {
    case email
    case sms

    /// The factor a code on this channel proves.
    var factor: SecondFactor {
        switch self {
        case .email: .email
        case .sms: .sms
        }
    }
}
