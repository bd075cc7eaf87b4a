import Foundation
import GatehouseProtocol

/// A sign-in by a device without a keyboard-friendly browser (a TV, a terminal), approved by the person on another
/// device (RFC 8628): show ``userCode`` and ``verificationURI`` (or a QR code of ``verificationURIComplete``), then
/// wait for ``GatehouseClient/completeDeviceAuthorization(_:)``.
///
/// ```swift
/// let authorization = try await gatehouse.startDeviceAuthorization()
/// show("Go to \(authorization.verificationURI) and enter \(authorization.userCode)")
/// let user = try await gatehouse.completeDeviceAuthorization(authorization)
/// ```
public struct DeviceAuthorization: Sendable, Equatable {
    /// The code the person types on the other device (`WDJB-MJHT`).
    public let userCode: String
    /// The page where the person types it.
    public let verificationURI: URL
    /// The page with the code filled in, for a QR code or a link; the person still confirms the code there.
    public let verificationURIComplete: URL?
    /// When both codes stop working.
    public let expiresAt: Date
    /// How long to wait between polls, as the provider asked.
    public let interval: TimeInterval
    /// The secret the device polls with: never shown.
    let deviceCode: String

    init(response: DeviceAuthorizationResponse, receivedAt now: Date = Date()) throws(GatehouseError) {
        guard let page = URL(string: response.verificationURI), !response.userCode.isEmpty, !response.deviceCode.isEmpty else {
            throw .unexpectedResponse(status: 200)
        }
        userCode = response.userCode
        verificationURI = page
        verificationURIComplete = response.verificationURIComplete.flatMap(URL.init(string:))
        expiresAt = now.addingTimeInterval(TimeInterval(response.expiresIn))
        // RFC 8628 §3.2: five seconds when the provider names no interval.
        interval = TimeInterval(max(response.interval ?? 5, 1))
        deviceCode = response.deviceCode
    }
}

extension GatehouseClient {
    /// Asks the provider for a device sign-in's codes, for `scopes` (the configuration's by default).
    ///
    /// - Throws: ``GatehouseError/provider(status:error:description:)`` with `unauthorized_client` when the client
    ///   may not use the device grant, ``GatehouseError/network(_:)``.
    public func startDeviceAuthorization(scopes: [String]? = nil) async throws(GatehouseError) -> DeviceAuthorization {
        let metadata = try await metadata()
        let response = try await TokenClient(configuration: configuration, metadata: metadata).deviceAuthorization(scopes: scopes ?? configuration.scopes)
        return try DeviceAuthorization(response: response)
    }

    /// Waits for the person to answer `authorization` on the other device, polling at the provider's interval (longer
    /// each time it says `slow_down`), then validates the ID token and stores the session like any sign-in.
    ///
    /// Cancel the calling task to stop waiting.
    /// - Throws: ``GatehouseError/deviceSignInDenied``, ``GatehouseError/deviceCodeExpired``, ``GatehouseError/cancelled``,
    ///   ``GatehouseError/network(_:)`` when the provider stays unreachable.
    public func completeDeviceAuthorization(_ authorization: DeviceAuthorization) async throws(GatehouseError) -> UserSession {
        let metadata = try await metadata()
        let completion = try SignInCompletion(configuration: configuration, metadata: metadata)
        let tokenClient = completion.tokenClient
        var interval = authorization.interval
        var networkFailures = 0
        while true {
            do {
                try await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            } catch {
                throw .cancelled
            }
            let response: TokenResponse
            do {
                response = try await tokenClient.pollDeviceCode(authorization.deviceCode)
            } catch .provider(_, "authorization_pending", _) {
                networkFailures = 0
                if Date() >= authorization.expiresAt { throw .deviceCodeExpired }
                continue
            } catch .provider(_, "slow_down", _) {
                // RFC 8628 §3.5: five seconds more, from now on.
                interval += 5
                continue
            } catch .provider(_, "access_denied", _) {
                throw .deviceSignInDenied
            } catch .provider(_, "expired_token", _) {
                throw .deviceCodeExpired
            } catch .network(let cause) {
                // A short outage is waited out (RFC 8628 §3.5 asks for a back-off), a long one ends the wait.
                networkFailures += 1
                if networkFailures >= 5 || Date() >= authorization.expiresAt { throw .network(cause) }
                interval *= 2
                continue
            }
            return try await completion.finish(response, nonce: nil).user
        }
    }
}
