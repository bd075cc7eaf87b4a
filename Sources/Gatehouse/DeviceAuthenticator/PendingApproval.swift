import Foundation

/// A sign-in waiting for the person's decision: who asks, for which account, and until when.
public struct PendingApproval: Sendable, Equatable {
    /// The identity that claimed the session.
    public let identityID: String
    public let sessionID: String
    /// The service, as it names itself.
    public let serviceName: String
    /// The application the person is signing in to.
    public let clientName: String
    public let username: String
    public let expiresAt: Date
}
