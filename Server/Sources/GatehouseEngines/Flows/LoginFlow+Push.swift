import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// "Approve on your phone": a second factor answered in the authenticator app. The node shows a two-digit number and
/// a push goes to the account's registered app, which offers three numbers; the person picks the one on the screen
/// and enters the PIN (``AuthenticatorController`` checks both). The node's `check` goes on once approved; a wrong
/// number or "this wasn't me" denies it there and then.
extension LoginFlow {
    /// The push node: the number to pick, and where the notification went.
    package func pushNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let pending = state.secondFactor.push
        let another = state.secondFactor.factors.count > 1 ? [FlowAction(id: .choose, kind: .submit, label: say("flow.second_factor.another"))] : []
        let description =
            if let device = pending?.deviceName {
                say("flow.push.description.named", ["device": device, "client": clientName])
            } else {
                say("flow.push.description.default", ["client": clientName])
            }
        return FlowNode(
            id: FlowStep.push.rawValue, name: say("factor.push"), description: description,
            category: .mfaChallenge,
            fields: [
                FlowField(
                    key: "number", kind: .label, label: pending.map { String($0.number) } ?? "", required: false,
                    defaultValue: pending.map { String($0.number) })
            ],
            actions: [
                FlowAction(id: .check, kind: .submit, label: say("flow.app_login.check")),
                FlowAction(id: .resend, kind: .submit, label: say("flow.push.resend")),
            ] + another,
            messages: messages)
    }

    /// The node of `state` again, with one message saying why the sign-in did not go on.
    package func shown(_ state: FlowStore.LoginState, _ text: Phrase, level: FlowMessage.Level, code: String, _ problem: Problem) -> Outcome {
        .retry(node(for: state, messages: [FlowMessage(level: level, text: text, code: code)]), problem)
    }

    /// Where a push stands for its flow.
    package enum PushAnswer: Sendable {
        /// Approved in the app, and used up now: the user it signs in.
        case approved(userID: String)
        /// Not approved (yet): the node again, saying why.
        case notYet(Outcome)
    }

    /// Reads the status of `pending` for the flow `id` (at `state`); an approval is used up here, once.
    package func answer(to pending: PendingPush, id: String, state: FlowStore.LoginState) async throws -> PushAnswer {
        switch try await appLogins.status(pending.sessionID, flowID: id) {
        case .pending, .claimed:
            return .notYet(shown(state, say("flow.push.waiting"), level: .info, code: "push_pending", .waiting))
        case .aborted:
            return .notYet(shown(state, say("flow.push.denied"), level: .error, code: "push_denied", .notApproved))
        case .expired:
            return .notYet(shown(state, say("flow.push.expired"), level: .error, code: "push_expired", .notApproved))
        case .approved:
            guard let userID = try await appLogins.consume(pending.sessionID, flowID: id), !userID.isEmpty else {
                return .notYet(shown(state, say("flow.push.expired"), level: .error, code: "push_expired", .notApproved))
            }
            return .approved(userID: userID)
        }
    }

    /// Sends the push of session `sessionID` to `identity`'s app once the step commits; it expires with the session.
    func sendPush(to identity: DeviceIdentity, target: PushTarget, for user: User, sessionID: String, clientName: String, now: Int64) {
        pushes.sendAfterCommit(
            PushApproval(
                target: target, title: say("push.title", ["client": clientName]).text,
                body: say("push.body", ["username": user.username, "client": clientName]).text,
                payload: PushApprovalPayload(service: settings.url("/authenticator"), identityID: identity.id, sessionID: sessionID),
                expiresAt: now + settings.authenticator.accessCodeLifetime),
            on: database)
    }

    /// Sends a push to `user`'s newest registered app that can receive one and moves `state` to its node; an outcome
    /// only when none can.
    package func startPush(_ id: String, state: inout FlowStore.LoginState, user: User) async throws -> Outcome? {
        let policy = settings.authenticator
        guard let identity = try await deviceIdentities.pushable(userID: user.id, limit: policy.maxPINAttempts).first, let target = identity.push
        else {
            return .retry(node(for: state, messages: [FlowMessage(level: .error, text: say("flow.push.no_device"), code: "push_unavailable")]), .notApproved)
        }
        let clientName = state.clientName ?? state.request.clientID
        let created = try await appLogins.createPush(
            flowID: id, clientName: clientName, requester: .init(address: source.text, userAgent: userAgent), identityID: identity.id,
            userID: user.id, lifetime: policy.accessCodeLifetime)
        let now = clock.now()
        state.secondFactor.push = PendingPush(sessionID: created.id, number: created.number, deviceName: identity.deviceName, sentAt: now)
        state.step = FlowStep.push
        sendPush(to: identity, target: target, for: user, sessionID: created.id, clientName: clientName, now: now)
        logger.info("Sent a sign-in push", metadata: ["user": "\(user.id)", "identity": "\(identity.id)"])
        return nil
    }

    /// A submission on the push node: check whether it was approved, send another, or choose another factor.
    package func advancePush(_ id: String, state: FlowStore.LoginState, action: FlowActionID, user: User) async throws -> Outcome {
        var next = state
        switch action {
        case .choose:
            next.step = FlowStep.chooseFactor
            next.secondFactor.push = nil
        case .resend:
            let wait = settings.oneTimeCodes.resendDelay - (clock.now() - (state.secondFactor.push?.sentAt ?? 0))
            if wait > 0 { return shown(state, say("flow.push.too_soon", ["seconds": "\(wait)"]), level: .error, code: "resend_too_soon", .invalidInput) }
            if let refused = try await startPush(id, state: &next, user: user) { return refused }
        default:
            guard let pending = state.secondFactor.push else { return .gone }
            switch try await answer(to: pending, id: id, state: state) {
            case .notYet(let outcome):
                return outcome
            case .approved(let userID):
                guard userID == user.id else { return .gone }
                next.secondFactor.push = nil
                // The app's key, opened by a PIN the server checked (RFC 8176 `swk`, `pin`).
                return try await complete(id, state: next.adding(methods: ["swk", "pin"]), user: user)
            }
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }
}

/// "Send a notification to my phone" instead of the password (`push_sign_in`): the same push and number for the name
/// typed, approved like a QR code (one factor, `swk` `pin`; ``afterApproval(_:state:user:returnStep:)`` decides what
/// else the policy asks). Every name gets the same node and a session that waits: only an account with an app that
/// takes pushes receives one, so the page says nothing about which names are accounts.
extension LoginFlow {
    package var pushSignInAction: FlowAction { FlowAction(id: .pushSignIn, kind: .submit, label: say("flow.push_sign_in.start")) }

    package func pushSignInNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let number = state.secondFactor.push.map { String($0.number) }
        return FlowNode(
            id: FlowStep.pushSignIn.rawValue, name: say("factor.push"),
            description: say("flow.push_sign_in.description", ["account": state.username ?? "", "client": clientName]),
            category: .appLogin,
            fields: [FlowField(key: "number", kind: .label, label: number ?? "", required: false, defaultValue: number)],
            actions: [
                FlowAction(id: .check, kind: .submit, label: say("flow.app_login.check")),
                FlowAction(id: .resend, kind: .submit, label: say("flow.push.resend")),
                FlowAction(id: .password, kind: .submit, label: say("flow.app_login.password")),
            ],
            messages: messages)
    }

    /// Sends the push for the name `typed` (or the flow's, on the password node) and shows its number.
    package func startPushSignIn(_ id: String, state: FlowStore.LoginState, typed: String?) async throws -> Outcome {
        let username = (typed ?? state.username ?? "").trimmingCharacters(in: .whitespaces)
        guard !username.isEmpty else {
            let message = FlowMessage(level: .error, text: say("flow.push_sign_in.username_first"), field: "username", code: "invalid_value")
            return .retry(node(for: state, messages: [message]), .invalidInput)
        }
        var next = state
        next.username = username
        let returnStep = state.secondFactor.push?.returnStep ?? state.step
        let policy = settings.authenticator
        let user = try await users.find(username: username)
        let identity: DeviceIdentity? =
            if let user, !user.isLocked { try await deviceIdentities.pushable(userID: user.id, limit: policy.maxPINAttempts).first } else { nil }
        let clientName = state.clientName ?? state.request.clientID
        let now = clock.now()
        // A name without an app that takes pushes gets a session no app will answer: it waits, then expires.
        let created = try await appLogins.createPush(
            flowID: id, clientName: clientName, requester: .init(address: source.text, userAgent: userAgent),
            identityID: identity?.id ?? "none:" + SecureRandom.token(byteCount: 8), userID: identity == nil ? "" : user?.id ?? "",
            lifetime: policy.accessCodeLifetime)
        next.secondFactor.push = PendingPush(
            sessionID: created.id, number: created.number, deviceName: nil, sentAt: now, returnStep: returnStep)
        next.step = FlowStep.pushSignIn
        next.lockedOut = false
        if let identity, let target = identity.push, let user {
            sendPush(to: identity, target: target, for: user, sessionID: created.id, clientName: clientName, now: now)
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    package func advancePushSignIn(_ id: String, state: FlowStore.LoginState, action: FlowActionID) async throws -> Outcome {
        guard let pending = state.secondFactor.push else { return .gone }
        switch action {
        case .password:
            var next = state
            next.step = pending.returnStep ?? FlowStep.credentials
            next.secondFactor.push = nil
            try await flows.update(id, to: next)
            return .next(node(for: next))
        case .resend:
            let wait = settings.oneTimeCodes.resendDelay - (clock.now() - pending.sentAt)
            if wait > 0 { return shown(state, say("flow.push.too_soon", ["seconds": "\(wait)"]), level: .error, code: "resend_too_soon", .invalidInput) }
            return try await startPushSignIn(id, state: state, typed: state.username)
        default:
            switch try await answer(to: pending, id: id, state: state) {
            case .notYet(let outcome):
                return outcome
            case .approved(let userID):
                guard let user = try await users.find(id: userID) else {
                    return shown(state, say("flow.push.expired"), level: .error, code: "push_expired", .notApproved)
                }
                guard !user.isLocked else { return shown(state, say(LoginMessages.locked), level: .error, code: "locked", .locked) }
                var approved = state
                approved.secondFactor.push = nil
                return try await afterApproval(id, state: approved, user: user, returnStep: pending.returnStep ?? FlowStep.credentials)
            }
        }
    }
}
