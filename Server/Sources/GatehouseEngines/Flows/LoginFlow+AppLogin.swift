import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// "Sign in with the app": the node shows a QR code with the service URL and a fresh access code; an
/// authenticator app approves it with its PIN (``AuthenticatorController``), and the next submission of this
/// node (the page's script sends it when the live status changes) finishes the sign-in.
extension LoginFlow {
    package var appLoginAction: FlowAction { FlowAction(id: .app, kind: .submit, label: say("flow.app_login.start")) }

    /// What the QR code carries: the service URL, `#`, the access code.
    package func appLoginPayload(accessCode: String) -> String {
        settings.url("/authenticator") + "#" + accessCode
    }

    package func appLoginNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode? {
        guard case .signIn(let pending?) = state.journey,
            let code = try? appLogins.box.open(pending.sealedAccessCode)
        else { return nil }
        let accessCode = String(decoding: code, as: UTF8.self)
        let clientName = state.clientName ?? state.request.clientID
        return FlowNode(
            id: FlowStep.appLogin.rawValue, name: say("flow.app_login.start"),
            description: say("flow.app_login.description", ["client": clientName]),
            category: .appLogin,
            fields: [
                FlowField(key: "qr", kind: .qrCode, label: say("flow.app_login.qr_code"), defaultValue: appLoginPayload(accessCode: accessCode)),
                FlowField(key: "access_code", kind: .label, label: say("flow.app_login.access_code", ["code": accessCode]), defaultValue: accessCode),
            ],
            actions: [
                FlowAction(id: .check, kind: .submit, label: say("flow.app_login.check")),
                FlowAction(id: .newCode, kind: .submit, label: say("flow.app_login.new_code")),
                FlowAction(id: .password, kind: .submit, label: say("flow.app_login.password")),
            ],
            messages: messages
        )
    }

    /// Shows a new QR code (replacing any earlier one of this flow).
    package func startAppLogin(_ id: String, state: FlowStore.LoginState) async throws -> Outcome {
        var next = state
        let policy = settings.authenticator
        let created = try await appLogins.create(
            flowID: id, clientName: state.clientName ?? state.request.clientID,
            requester: .init(address: source.text, userAgent: userAgent),
            lifetime: policy.accessCodeLifetime)
        let earlier: PendingAppLogin? = if case .signIn(let pending?) = state.journey { pending } else { nil }
        next.journey = .signIn(
            appLogin: PendingAppLogin(
                sessionID: created.id, sealedAccessCode: try appLogins.box.seal(Data(created.accessCode.utf8)),
                returnStep: earlier?.returnStep ?? state.step))
        next.step = FlowStep.appLogin
        next.lockedOut = false
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    package func advanceAppLogin(_ id: String, state: FlowStore.LoginState, action: FlowActionID) async throws -> Outcome {
        guard case .signIn(let pending?) = state.journey else { return .gone }
        switch action {
        case .newCode:
            return try await startAppLogin(id, state: state)
        case .password:
            var next = state
            next.step = pending.returnStep
            next.journey = .signIn(appLogin: nil)
            try await flows.update(id, to: next)
            return .next(node(for: next))
        default:
            break
        }
        func again(_ text: Phrase, level: FlowMessage.Level, code: String, _ problem: Problem) -> Outcome {
            .retry(node(for: state, messages: [FlowMessage(level: level, text: text, code: code)]), problem)
        }
        switch try await appLogins.status(pending.sessionID, flowID: id) {
        case .pending, .claimed:
            return again(say("flow.app_login.waiting"), level: .info, code: "app_login_pending", .waiting)
        case .aborted:
            return again(say("flow.app_login.aborted"), level: .error, code: "app_login_aborted", .notApproved)
        case .expired:
            return again(say("flow.app_login.expired"), level: .error, code: "app_login_expired", .notApproved)
        case .approved:
            guard let userID = try await appLogins.consume(pending.sessionID, flowID: id),
                let user = try await users.find(id: userID)
            else { return again(say("flow.app_login.expired"), level: .error, code: "app_login_expired", .notApproved) }
            guard !user.isLocked else { return again(say(LoginMessages.locked), level: .error, code: "locked", .locked) }
            return try await afterApproval(id, state: state, user: user, returnStep: pending.returnStep)
        }
    }

    /// The app approved for `user`. Its key unlocked by a PIN the server checked (RFC 8176 `swk`, `pin`) counts as one
    /// factor here: the app was bound to the account by a code sent to its address, so it proves no more than the
    /// mailbox (NIST SP 800-63B §6.1.2.1: a binding grants no more than what it took). The sign-on policy and a
    /// request for the multi-factor `acr` ask for the rest, never by email again; when nothing else can give it, the
    /// person signs in with their password instead.
    package func afterApproval(_ id: String, state: FlowStore.LoginState, user: User, returnStep: FlowStep) async throws -> Outcome {
        var signedIn = state
        signedIn.journey = .signIn(appLogin: nil)
        let account = FlowStore.ProvenAccount(userID: user.id, methods: ["swk", "pin"], passwordSettled: true)
        return try await asFirstFactorHooksDecided(id, state: signedIn, user: user, account: account, proven: .email) {
            try await afterAllowedApproval(id, state: state, signedIn: signedIn, user: user, account: account, returnStep: returnStep)
        }
    }

    /// An approval the hooks at `first_factor` allowed: on as the sign-on policy says.
    private func afterAllowedApproval(
        _ id: String, state: FlowStore.LoginState, signedIn: FlowStore.LoginState, user: User, account: FlowStore.ProvenAccount, returnStep: FlowStep
    ) async throws -> Outcome {
        let plan = try await secondFactorPlan(for: state.request, user: user, proven: .email)
        guard let plan, plan.factors.isEmpty else {
            return try await afterFirstFactor(id, state: signedIn, user: user, account: account, plan: .some(plan))
        }
        // Nothing but the mailbox again: an offer to set a factor up is skipped; a requirement sends the person to the password.
        if plan.offerEnrollment { return try await afterFirstFactor(id, state: signedIn, user: user, account: account, plan: .some(nil)) }
        var password = state
        password.step = returnStep
        password.journey = .signIn(appLogin: nil)
        password.username = user.username
        try await flows.update(id, to: password)
        logger.info("QR sign-in needs more than the app", metadata: ["user": "\(user.id)"])
        return .retry(
            node(for: password, messages: [FlowMessage(level: .error, text: say("flow.app_login.not_enough"), code: "app_login_insufficient")]), .notApproved)
    }

    /// Asks the hooks at `first_factor` about the account whose app approved this flow's QR or push sign-in (`swk`),
    /// before the transaction like the password's: read without using the approval up, which the step does.
    package mutating func askFirstFactorHooks(aboutApprovalIn id: String, state: FlowStore.LoginState) async throws {
        let sessionID: String? =
            switch state.journey {
            case .signIn(let pending?) where state.step == .appLogin: pending.sessionID
            default: state.step == .pushSignIn ? state.secondFactor.push?.sessionID : nil
            }
        guard !firstFactorHooks.targets.isEmpty, let sessionID, let userID = try await appLogins.approvedUser(sessionID, flowID: id),
            let user = try await users.find(id: userID), !user.isLocked
        else { return }
        await passwords.askFirstFactorHooks(firstFactorHooks, about: user, factor: "swk", clientID: state.request.clientID, address: source.text)
    }
}
