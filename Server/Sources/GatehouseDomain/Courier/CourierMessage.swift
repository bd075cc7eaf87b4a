/// A message the courier delivers, as queued in the database.
public struct CourierMessage: Sendable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// Waiting for its first or next attempt.
        case queued
        case sent
        /// Given up after the last attempt, or refused for good by the receiving server.
        case failed
    }

    public var id: String
    public var channel: MessageChannel
    /// An email address or an E.164 phone number.
    public var recipient: String
    /// Which text this is (e.g. `verification_code`), for receivers that render their own.
    public var template: String
    public var subject: String
    public var body: String
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Int64
    public var lastError: String?
    public var createdAt: Int64
    public var sentAt: Int64?
}
