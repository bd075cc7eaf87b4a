import AsyncHTTPClient
import Foundation
import GatehouseFoundation
import NIOCore

/// Apple's provider API (HTTP/2): `POST {endpoint}/3/device/{token}` with a provider token (an ES256 JWT by the team,
/// renewed every 50 minutes as Apple asks, at most once in 20), `apns-topic`, `apns-push-type: alert`, `apns-priority:
/// 10` and `apns-expiration` at the sign-in's end.
package actor APNsSender {
    private let settings: PushSettings.APNs
    private let signer: ClientAssertionSigner
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let clock: UnixClock
    private var token: (value: String, issuedAt: Int64)?

    package init(settings: PushSettings.APNs, timeout: Int64, clock: UnixClock) throws {
        self.settings = settings
        signer = try ClientAssertionSigner(pemFile: settings.privateKeyFile, keyID: settings.keyID)
        guard signer.algorithm == "ES256" else { throw ConfigurationError(key: "push.apns.private_key_file", "must hold a P-256 key (AuthKey_….p8).") }
        client = try PushHTTP.client(caFile: settings.caFile)
        self.timeout = .seconds(timeout)
        self.clock = clock
    }

    /// Checks that `file` holds the P-256 key a provider token is signed with.
    package static func providerKey(_ file: String) throws -> ClientAssertionSigner {
        let signer = try ClientAssertionSigner(pemFile: file, keyID: nil)
        guard signer.algorithm == "ES256" else { throw ConfigurationError(key: "push.apns.private_key_file", "must hold a P-256 key (AuthKey_….p8).") }
        return signer
    }

    package func send(_ push: PushApproval) async throws {
        let now = clock.now()
        var request = HTTPClientRequest(url: settings.endpoint + "/3/device/" + push.target.token)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + (try providerToken(now: now)))
        request.headers.add(name: "apns-topic", value: settings.topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "apns-expiration", value: String(push.expiresAt))
        request.headers.add(name: "apns-collapse-id", value: String(push.payload.sessionID.prefix(64)))
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try push.apnsBody()))
        let response = try await client.execute(request, timeout: timeout)
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok else {
            let reason = (try? JSONSerialization.jsonObject(with: Data(buffer: answer)) as? [String: Any])?["reason"] as? String
            throw PushFailure("APNs answered HTTP \(response.status.code)\(reason.map { " \($0)" } ?? "")", unregistered: response.status.code == 410)
        }
    }

    /// The provider token, reused for 50 minutes.
    private func providerToken(now: Int64) throws -> String {
        if let token, now - token.issuedAt < 50 * 60 { return token.value }
        let value = try signer.sign(["iss": .string(settings.teamID), "iat": .number(now)])
        token = (value, now)
        return value
    }
}
