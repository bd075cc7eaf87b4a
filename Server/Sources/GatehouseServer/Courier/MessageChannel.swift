/// Where a message goes: an email address or a phone number.
public enum MessageChannel: String, Sendable, Codable, CaseIterable {
    /// An email to an address.
    case email
    /// A text message to an E.164 phone number.
    case sms

    /// The factor a code on this channel proves.
    var factor: SecondFactor {
        switch self {
        case .email: .email
        case .sms: .sms
        }
    }
}
