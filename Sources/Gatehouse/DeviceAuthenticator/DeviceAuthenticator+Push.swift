import Foundation
import GatehouseProtocol

/// Sign-ins pushed to this app ("approve on your phone"): registering where pushes go, reading one, and answering it
/// with the number the sign-in page shows and the PIN, or denying it.
extension DeviceAuthenticator {
    /// Tells the identity's service where to push its sign-ins: the device token APNs gave the app
    /// (`application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`, in hex) or the FCM registration token.
    /// A new token replaces the old.
    public func registerPushToken(_ token: String, platform: PushPlatform, for identityID: String) async throws(DeviceAuthenticatorError) {
        let record = try await identity(identityID)
        try await connection.raw(
            "PUT", endpoint(record, \.identity) + "/push", body: DevicePushRegistration(platform: platform, token: token), secret: record.deviceSecret)
    }

    /// Stops pushes to the identity (the person turned notifications off).
    public func unregisterPushToken(for identityID: String) async throws(DeviceAuthenticatorError) {
        let record = try await identity(identityID)
        try await connection.raw("DELETE", endpoint(record, \.identity) + "/push", secret: record.deviceSecret)
    }

    /// Reads a sign-in push: `payload` is the notification's JSON (APNs' `userInfo`, or FCM's data map, serialized),
    /// whose `gatehouse` member names the service, identity and session. Returns the request to show, with
    /// ``PendingApproval/numberChoices`` for the person to pick the page's number from.
    /// - Throws: ``DeviceAuthenticatorError/notAGatehousePush`` for any other notification,
    ///   ``DeviceAuthenticatorError/untrustedService(_:)`` for a service outside ``trustedServices``,
    ///   ``DeviceAuthenticatorError/sessionExpired`` when it was answered, replaced or expired.
    public func handlePush(_ payload: Data) async throws(DeviceAuthenticatorError) -> PendingApproval {
        guard let push = Self.pushPayload(in: payload), let serviceURL = URL(string: push.service) else { throw .notAGatehousePush }
        try checkTrusted(serviceURL)
        let record: DeviceIdentityRecord
        do {
            record = try await identity(push.identityID)
        } catch .unknownIdentity {
            throw .notAGatehousePush
        }
        guard record.serviceURL == serviceURL else { throw .notAGatehousePush }
        let session = try await connection.send(
            "GET", endpoint(record, \.sessions) + "/" + push.sessionID, secret: record.deviceSecret, as: AuthenticatorSession.self)
        return PendingApproval(session, identityID: record.id)
    }

    /// Approves a pushed sign-in with the `number` the person picked and their `pin`. A wrong number denies the
    /// sign-in (the service tells the account's owner); a wrong PIN is reported as for a QR code.
    /// - Throws: ``DeviceAuthenticatorError/wrongNumber``, and the errors of ``approve(_:pin:)``.
    public func approve(_ request: PendingApproval, number: Int, pin: String) async throws(DeviceAuthenticatorError) {
        try await approve(request, pin: pin, number: number)
    }

    /// Denies a sign-in; with `reportFraud` ("this wasn't me") the service records it and tells the account's owner.
    public func deny(_ request: PendingApproval, reportFraud: Bool) async throws(DeviceAuthenticatorError) {
        let record = try await identity(request.identityID)
        try await connection.raw(
            "POST", endpoint(record, \.sessions) + "/" + request.sessionID + "/abort", body: AuthenticatorDenial(reportFraud: reportFraud),
            secret: record.deviceSecret)
    }

    /// The `gatehouse` member of a notification's JSON: an object (APNs), or JSON text (FCM's data values are strings).
    static func pushPayload(in data: Data) -> PushApprovalPayload? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        // FCM hands the app its data map; some apps pass the whole message, with the map under `data`.
        let member = object[PushApprovalPayload.key] ?? (object["data"] as? [String: Any])?[PushApprovalPayload.key]
        let bytes: Data? =
            switch member {
            case let text as String: Data(text.utf8)
            case let nested as [String: Any]: try? JSONSerialization.data(withJSONObject: nested)
            default: nil
            }
        return bytes.flatMap { try? JSONDecoder().decode(PushApprovalPayload.self, from: $0) }
    }
}
