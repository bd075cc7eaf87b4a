/// Where a message goes: an email address, or a phone number by text message or by a call.
public enum MessageChannel: String, Sendable, Codable, CaseIterable {
    /// An email to an address.
    case email
    /// A text message to an E.164 phone number.
    case sms
    /// A phone call to an E.164 phone number that reads the code aloud, through a voice gateway behind a webhook.
    case voice
}
