import Foundation
import GatehouseProtocol

/// A sign-in push for one device: the alert the person sees, the payload the app reads, and when it stops mattering.
package struct PushApproval: Sendable, Equatable {
    /// Where it goes.
    package var target: PushTarget
    /// The alert's title, such as "Sign in to Example?".
    package var title: String
    /// The alert's text: which application asks.
    package var body: String
    /// What the app fetches the request with.
    package var payload: PushApprovalPayload
    /// When the sign-in it asks about expires: the push is not delivered after it.
    package var expiresAt: Int64

    package init(target: PushTarget, title: String, body: String, payload: PushApprovalPayload, expiresAt: Int64) {
        self.target = target
        self.title = title
        self.body = body
        self.payload = payload
        self.expiresAt = expiresAt
    }

    /// The JSON an app receives: APNs' `aps` alert (and FCM's data) beside ``PushApprovalPayload/key``.
    package func apnsBody() throws -> Data {
        let object: [String: Any] = [
            "aps": ["alert": ["title": title, "body": body], "sound": "default", "category": "GATEHOUSE_SIGN_IN", "mutable-content": 1],
            PushApprovalPayload.key: try JSONSerialization.jsonObject(with: JSONEncoder().encode(payload)),
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
