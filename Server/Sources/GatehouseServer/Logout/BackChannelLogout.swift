import GatehouseDomain
import GatehouseEngines
import GatehouseFoundation
import Logging

/// Tells clients that a person signed out (OpenID Connect Back-Channel Logout 1.0): takes due notifications from the
/// queue any node may fill, signs a logout token for each (for the client, about the person and their session, typed
/// `logout+jwt`, with a new `jti` per attempt) and posts it to the client's back-channel logout URI. A client that does
/// not answer 2xx is tried again later (``LogoutDeliveryPolicy``); given up, the failure is audited.
struct BackChannelLogout: Sendable {
    let queue: LogoutNotificationQueue
    let clients: ClientStore
    let keys: SigningKeyRing
    let audit: AuditLog
    let issuer: String
    let policy: LogoutDeliveryPolicy
    /// Posts to the URIs of clients that registered themselves: public addresses only (unless development allows others).
    let strangers: GuardedFetch
    /// Posts to the URIs of clients an operator registered, which may be on the operator's own network.
    let operators: GuardedFetch
    let clock: UnixClock
    let logger: Logger

    /// Seconds a logout token is valid: it is meant for the one post that carries it.
    static let tokenLifetime: Int64 = 120
    /// Notifications taken at a time.
    static let batch = 20

    /// Delivers the notifications that are due, side by side; never throws (a database error waits for the next round).
    func deliverDue() async {
        let due: [LogoutNotificationQueue.Notification]
        do {
            due = try await queue.claimDue(limit: Self.batch)
        } catch {
            logger.warning("Could not read the logout notification queue", metadata: ["error": "\(error)"])
            return
        }
        await withTaskGroup(of: Void.self) { group in
            for notification in due { group.addTask { await deliver(notification) } }
        }
    }

    private func deliver(_ notification: LogoutNotificationQueue.Notification) async {
        do {
            guard let client = try await clients.find(id: notification.clientID), let uri = client.backchannelLogoutURI else {
                // The client is gone or no longer listens: nobody to tell.
                try await queue.delivered(notification)
                return
            }
            let now = clock.now()
            let claims = LogoutTokenClaims(
                iss: issuer, aud: client.id, iat: now, exp: now + Self.tokenLifetime, jti: SecureRandom.token(byteCount: 16), sub: notification.userID,
                sid: notification.sid)
            let token = try await keys.sign(claims, algorithm: client.idTokenAlgorithm, type: .logoutToken)
            do {
                try await (client.registeredByOperator ? operators : strangers).post(uri, form: [("logout_token", token)], what: "back-channel logout URI")
            } catch let refusal as GuardedFetch.Refusal {
                try await failed(notification, error: refusal.description)
                return
            }
            try await queue.delivered(notification)
            try await audit.record(
                .logoutNotified, user: notification.userID, client: client.id,
                details: ["sid": notification.sid, "attempts": String(notification.attempts)])
        } catch {
            logger.warning("A logout notification could not be handled", metadata: ["client": "\(notification.clientID)", "error": "\(error)"])
        }
    }

    private func failed(_ notification: LogoutNotificationQueue.Notification, error: String) async throws {
        let gaveUp = try await queue.failed(notification, error: error, maxAttempts: policy.maxAttempts, retryDelay: policy.retryDelay)
        logger.notice(
            "A client's back-channel logout URI failed",
            metadata: ["client": "\(notification.clientID)", "attempt": "\(notification.attempts)", "given_up": "\(gaveUp)", "error": "\(error)"])
        guard gaveUp else { return }
        try await audit.record(
            .logoutNotificationFailed, user: notification.userID, client: notification.clientID,
            details: ["sid": notification.sid, "attempts": String(notification.attempts), "error": String(error.prefix(300))])
    }
}
