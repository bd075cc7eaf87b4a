import AsyncHTTPClient
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import NIOCore

/// Firebase Cloud Messaging HTTP v1: an access token from the service account (a signed JWT exchanged at its
/// `token_uri`, RFC 7523, kept until a minute before it expires), then `POST {endpoint}/v1/projects/{project}/messages:send`
/// with the notification, the payload as data, and a time to live ending with the sign-in.
package actor FCMSender {
    private let settings: PushSettings.FCM
    private let account: FCMServiceAccount
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let clock: UnixClock
    private var accessToken: (value: String, until: Int64)?

    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    package init(settings: PushSettings.FCM, timeout: Int64, clock: UnixClock) throws {
        self.settings = settings
        account = try FCMServiceAccount(file: settings.serviceAccountFile)
        client = try PushHTTP.client(caFile: settings.caFile)
        self.timeout = .seconds(timeout)
        self.clock = clock
    }

    package func send(_ push: PushApproval) async throws {
        let now = clock.now()
        let payload = String(decoding: try JSONEncoder().encode(push.payload), as: UTF8.self)
        let message: [String: Any] = [
            "message": [
                "token": push.target.token,
                "notification": ["title": push.title, "body": push.body],
                "data": [PushApprovalPayload.key: payload],
                "android": ["priority": "high", "ttl": "\(max(1, push.expiresAt - now))s"],
            ]
        ]
        var request = HTTPClientRequest(url: settings.endpoint + "/v1/projects/\(account.projectID)/messages:send")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer " + (try await token(now: now)))
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])))
        let response = try await client.execute(request, timeout: timeout)
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok else {
            let status = ((try? JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any])?["error"] as? [String: Any])?["status"] as? String
            if response.status.code == 401 { accessToken = nil }
            throw PushFailure(
                "FCM answered HTTP \(response.status.code)\(status.map { " \($0)" } ?? "")", unregistered: status == "NOT_FOUND" || status == "UNREGISTERED")
        }
    }

    /// The service account's access token, fetched again a minute before it expires.
    private func token(now: Int64) async throws -> String {
        if let accessToken, accessToken.until > now { return accessToken.value }
        let assertion = try account.signer.sign([
            "iss": .string(account.clientEmail), "scope": .string(Self.scope), "aud": .string(account.tokenURI), "iat": .number(now),
            "exp": .number(now + 3600),
        ])
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(
                string: FormEncoding.encode([("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", assertion)])))
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok, let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            let value = object["access_token"] as? String
        else { throw PushFailure("the service account's token endpoint answered HTTP \(response.status.code)") }
        let lifetime = (object["expires_in"] as? Int).map(Int64.init) ?? 3600
        accessToken = (value, now + max(60, lifetime) - 60)
        return value
    }
}
