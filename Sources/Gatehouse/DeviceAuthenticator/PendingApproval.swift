import Foundation

/// A sign-in waiting for the person's decision: who asks, for which account, and until when.
public struct PendingApproval: Sendable, Equatable {
    /// The identity that claimed the session.
    public let identityID: String
    /// The sign-in session at the service.
    public let sessionID: String
    /// The service, as it names itself.
    public let serviceName: String
    /// The application the person is signing in to.
    public let clientName: String
    /// The account that will be signed in.
    public let username: String
    /// When the sign-in expires unless approved.
    public let expiresAt: Date
    /// Where the sign-in was requested: the browser's IP address as the server saw it. Show it, so a person can
    /// tell a QR code relayed from someone else's screen from their own.
    public var requesterAddress: String?
    /// The requesting browser's `User-Agent`, as the server saw it.
    public var requesterUserAgent: String?
    /// When the sign-in was requested.
    public var requestedAt: Date?
    /// For a sign-in that came by push: three numbers, one of them shown on the sign-in page. Ask the person to pick
    /// it, then ``DeviceAuthenticator/approve(_:number:pin:)``; empty for a scanned QR code.
    public var numberChoices: [Int] = []
}
