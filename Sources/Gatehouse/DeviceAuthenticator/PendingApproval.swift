import Foundation
import GatehouseProtocol

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

extension PendingApproval {
    /// The request `session` describes, answered by identity `identityID`.
    init(_ session: AuthenticatorSession, identityID: String) {
        self.init(
            identityID: identityID, sessionID: session.sessionID, serviceName: session.serviceName, clientName: session.clientName,
            username: session.username, expiresAt: Date().addingTimeInterval(TimeInterval(session.expiresIn)),
            requesterAddress: session.requesterAddress, requesterUserAgent: session.requesterUserAgent,
            requestedAt: session.requestedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }, numberChoices: session.numberChoices ?? [])
    }
}
