import Foundation
import GatehouseDomain
import GatehouseProtocol

/// "Approve on your phone": a second factor answered in the authenticator app. The node shows a two-digit number and
/// a push goes to the account's registered app, which offers three numbers; the person picks the one on the screen
/// and enters the PIN (``AuthenticatorController`` checks both). The node's `check` goes on once approved; a wrong
/// number or "this wasn't me" denies it there and then.
extension LoginFlow {
    package enum PushMessages {
        package static let waiting = "Waiting for approval on your phone."
        package static let denied = "The sign-in was denied on your phone. Send a new notification, or choose another way."
        package static let expired = "The notification expired. Send a new one to try again."
        package static let noDevice = "No phone can receive a notification for this account. Choose another way."
        package static func tooSoon(seconds: Int64) -> String { "A notification was just sent. Wait \(seconds) seconds before sending another." }
    }

    /// The push node: the number to pick, and where the notification went.
    package func pushNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let pending = state.secondFactor.push
        let device = pending?.deviceName.map { "“\($0)”" } ?? "your phone"
        let another = state.secondFactor.factors.count > 1 ? [FlowAction(id: .choose, kind: .submit, label: "Use another method")] : []
        return FlowNode(
            id: FlowStep.push.rawValue, name: "Approve on your phone",
            description:
                "We sent a notification to \(device). Open it, choose the number shown here and enter your PIN to sign in to \(clientName).",
            category: .mfaChallenge,
            fields: [
                FlowField(
                    key: "number", kind: .label, label: pending.map { String($0.number) } ?? "", required: false,
                    defaultValue: pending.map { String($0.number) })
            ],
            actions: [
                FlowAction(id: .check, kind: .submit, label: "Continue after approving"),
                FlowAction(id: .resend, kind: .submit, label: "Send a new notification"),
            ] + another,
            messages: messages)
    }

    /// Sends a push to `user`'s newest registered app that can receive one and moves `state` to its node; an outcome
    /// only when none can.
    package func startPush(_ id: String, state: inout FlowStore.LoginState, user: User) async throws -> Outcome? {
        let policy = settings.authenticator
        guard let identity = try await deviceIdentities.pushable(userID: user.id, limit: policy.maxPINAttempts).first, let target = identity.push
        else {
            return .retry(node(for: state, messages: [FlowMessage(level: .error, text: PushMessages.noDevice, code: "push_unavailable")]), .notApproved)
        }
        let clientName = state.clientName ?? state.request.clientID
        let created = try await appLogins.createPush(
            flowID: id, clientName: clientName, requester: .init(address: source.text, userAgent: userAgent), identityID: identity.id,
            userID: user.id, lifetime: policy.accessCodeLifetime)
        let now = clock.now()
        state.secondFactor.push = PendingPush(sessionID: created.id, number: created.number, deviceName: identity.deviceName, sentAt: now)
        state.step = FlowStep.push
        pushes.sendAfterCommit(
            PushApproval(
                target: target, title: "Sign in to \(clientName)?", body: "\(user.username) is signing in to \(clientName). Tap to approve or deny.",
                payload: PushApprovalPayload(service: settings.url("/authenticator"), identityID: identity.id, sessionID: created.id),
                expiresAt: now + policy.accessCodeLifetime),
            on: database)
        logger.info("Sent a sign-in push", metadata: ["user": "\(user.id)", "identity": "\(identity.id)"])
        return nil
    }

    /// A submission on the push node: check whether it was approved, send another, or choose another factor.
    package func advancePush(_ id: String, state: FlowStore.LoginState, action: FlowActionID, user: User) async throws -> Outcome {
        var next = state
        func again(_ text: String, level: FlowMessage.Level, code: String, _ problem: Problem) -> Outcome {
            .retry(node(for: state, messages: [FlowMessage(level: level, text: text, code: code)]), problem)
        }
        switch action {
        case .choose:
            next.step = FlowStep.chooseFactor
            next.secondFactor.push = nil
        case .resend:
            let wait = settings.oneTimeCodes.resendDelay - (clock.now() - (state.secondFactor.push?.sentAt ?? 0))
            if wait > 0 { return again(PushMessages.tooSoon(seconds: wait), level: .error, code: "resend_too_soon", .invalidInput) }
            if let refused = try await startPush(id, state: &next, user: user) { return refused }
        default:
            guard let pending = state.secondFactor.push else { return .gone }
            switch try await appLogins.status(pending.sessionID, flowID: id) {
            case .pending, .claimed:
                return again(PushMessages.waiting, level: .info, code: "push_pending", .waiting)
            case .aborted:
                return again(PushMessages.denied, level: .error, code: "push_denied", .notApproved)
            case .expired:
                return again(PushMessages.expired, level: .error, code: "push_expired", .notApproved)
            case .approved:
                guard try await appLogins.consume(pending.sessionID, flowID: id) == user.id else {
                    return again(PushMessages.expired, level: .error, code: "push_expired", .notApproved)
                }
                next.secondFactor.push = nil
                // The app's key, opened by a PIN the server checked (RFC 8176 `swk`, `pin`).
                return try await complete(id, state: next.adding(methods: ["swk", "pin"]), user: user)
            }
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }
}
