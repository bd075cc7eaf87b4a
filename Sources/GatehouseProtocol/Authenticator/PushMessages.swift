/// The push service a device identity's push token belongs to.
public enum PushPlatform: String, Codable, Sendable, CaseIterable {
    /// Apple Push Notification service: the token is the device token in hex.
    case apns
    /// Firebase Cloud Messaging: the token is the app instance's registration token.
    case fcm
}

/// Registers where an identity's pushes go (`PUT …/identity/push`): its platform and token. A new one replaces the old.
public struct DevicePushRegistration: Codable, Sendable, Equatable {
    /// APNs or FCM.
    public var platform: PushPlatform
    /// The token the platform gave the app.
    public var token: String

    /// A registration of `token` on `platform`.
    public init(platform: PushPlatform, token: String) {
        self.platform = platform
        self.token = token
    }
}

/// What a sign-in push carries besides its alert, under the key `gatehouse`: which service, identity and session it is
/// about. It holds no secret: the app fetches the request with the identity's device secret.
public struct PushApprovalPayload: Codable, Sendable, Equatable {
    /// The service URL (`{issuer}/authenticator`), checked against the app's trusted services.
    public var service: String
    /// The identity the push was sent to.
    public var identityID: String
    /// The sign-in session to show.
    public var sessionID: String

    /// A payload naming `sessionID` for `identityID` at `service`.
    public init(service: String, identityID: String, sessionID: String) {
        self.service = service
        self.identityID = identityID
        self.sessionID = sessionID
    }

    /// The key the payload sits under in the push's JSON.
    public static let key = "gatehouse"

    enum CodingKeys: String, CodingKey {
        case service
        case identityID = "identity_id"
        case sessionID = "session_id"
    }
}
