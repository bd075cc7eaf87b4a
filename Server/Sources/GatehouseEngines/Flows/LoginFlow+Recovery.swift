import GatehouseDomain
import GatehouseProtocol

/// Password recovery (identify → choose email or SMS → code → any enrolled second factor → new password) and
/// unlocking an account locked by failed sign-ins (a code by email). Neither says whether an account exists:
/// every identifier gets the same nodes and a code that only a real account's owner receives.
extension LoginFlow {
    package static let identifierField = FlowField(
        key: "username", kind: .text, label: "Username or email",
        validation: FieldValidation(maxLength: 256, message: "Enter your username or email address."),
        autocomplete: "username")

    /// The recovery and unlock nodes.
    package func recoveryNode(_ step: StepFamily.Recovery, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let back = FlowAction(id: .cancel, kind: .link, label: "Back to sign in", flow: FlowKind.login.rawValue)
        switch step {
        case .recoveryIdentify:
            var field = Self.identifierField
            field.defaultValue = state.username
            return FlowNode(
                id: FlowStep.recoveryIdentify.rawValue, name: "Reset your password",
                description: "Enter your username or email address. We'll send you a code to reset your password.",
                category: .recovery, fields: [field], actions: [FlowAction(id: .submit, kind: .submit, label: "Continue"), back],
                messages: messages)
        case .recoveryChoose:
            let options = recoveryChannels(for: state).map { FieldOption(value: $0.rawValue, label: Self.recoveryChannelLabel($0)) }
            return FlowNode(
                id: FlowStep.recoveryChoose.rawValue, name: "Where should we send the code?",
                description: "Choose where to receive the code for \(state.username ?? "your account").", category: .recovery,
                fields: [FlowField(key: "method", kind: .singleChoice, label: "Send the code by", options: options, defaultValue: "email")],
                actions: [FlowAction(id: .submit, kind: .submit, label: "Send code"), back], messages: messages)
        case .resetCode:
            let account = state.username ?? "this account"
            let description =
                switch state.recoveryChannel {
                case .voice: "If \(account) has the phone number on file, we're calling it to read out a code. Enter it here."
                case .sms: "If \(account) has the phone number on file, we sent a code to it. Enter it here."
                case .email, nil: "If \(account) has the email address on file, we sent a code to it. Enter it here."
                }
            return FlowNode(
                id: FlowStep.resetCode.rawValue, name: state.recoveryChannel == .voice ? "Enter the code you hear" : "Enter the code",
                description: description,
                category: .recovery, fields: [codeField],
                actions: [
                    FlowAction(id: .submit, kind: .submit, label: "Verify"), Self.resendAction,
                    FlowAction(id: .choose, kind: .submit, label: "Send it another way"),
                ], messages: messages)
        case .unlockCode:
            return FlowNode(
                id: FlowStep.unlockCode.rawValue, name: "Unlock your account",
                description: "If \(state.username ?? "this account") has an email address on file, we sent an unlock code to it. Enter it here.",
                category: .lockedOut, fields: [codeField],
                actions: [FlowAction(id: .submit, kind: .submit, label: "Unlock"), Self.resendAction, back], messages: messages)
        }
    }

    /// A submission on a recovery or unlock node.
    package func advanceRecovery(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        var next = state
        var candidate: User?
        if let id = state.candidateID { candidate = try await users.find(id: id) }
        let code = values["code"]?.text ?? ""
        switch (state.step, action) {
        case (_, .cancel):
            next = state.backToSignIn(username: state.username)
        case (FlowStep.recoveryIdentify, _):
            let identifier = values["username"]?.text.trimmingCharacters(in: .whitespaces) ?? ""
            let user = try await users.find(usernameOrEmail: identifier)
            // The identifier exactly as typed: showing the account's username would say that the email names one.
            next.username = identifier
            next.journey = .recovery(candidateID: user?.id, channel: nil)
            next.step = FlowStep.recoveryChoose
        case (FlowStep.recoveryChoose, _), (FlowStep.resetCode, .choose):
            guard action != .choose else {
                next.step = FlowStep.recoveryChoose
                break
            }
            let offered = recoveryChannels(for: state)
            guard let channel = values["method"].flatMap({ MessageChannel(rawValue: $0.text) }), offered.contains(channel) else {
                throw OAuthError.invalidRequest("Choose one of: \(offered.map(\.rawValue).joined(separator: ", ")).")
            }
            if let refused = try await sendCode(
                id, state: state, purpose: .recovery, channel: channel, to: Self.destination(of: candidate, on: channel),
                template: .recoveryCode, resend: false)
            {
                return refused
            }
            next.journey = .recovery(candidateID: state.candidateID, channel: channel)
            next.step = FlowStep.resetCode
        case (FlowStep.resetCode, .resend):
            let channel = state.recoveryChannel ?? .email
            return try await resend(
                id, state: state, purpose: .recovery, channel: channel, to: Self.destination(of: candidate, on: channel),
                template: .recoveryCode)
        case (FlowStep.resetCode, _):
            switch try await checkCode(id, state: state, purpose: .recovery, code: code, owner: candidate) {
            case .refused(let outcome): return outcome
            case .accepted(let channel):
                // Only the account's owner could have received the code; from here on it's their sign-in.
                guard let user = candidate else { return .gone }
                next.username = user.username
                next.account = FlowStore.ProvenAccount(userID: user.id, methods: [channel.factor.methodReference])
                logger.info("Recovery code accepted", metadata: ["user": "\(user.id)"])
                // An enrolled second factor is asked for whatever the client's policy: recovery never skips it. The
                // address the code just went to proves nothing more, so its factors are not among the choices.
                let enrolled = try await authenticators.enrolledFactors(userID: user.id).filter { factor in
                    channel == .email ? factor != .email : !factor.usesPhone
                }
                guard !enrolled.isEmpty else { return try await complete(id, state: next, user: user) }
                next.secondFactor.factors = enrolled
                if enrolled.count == 1 {
                    // The one factor is challenged at once: its code sent, or its passkey asked for.
                    if let refused = try await challenge(id, state: &next, factor: enrolled[0], user: user) { return refused }
                } else {
                    next.step = FlowStep.chooseFactor
                }
            }
        case (FlowStep.unlockCode, .resend):
            return try await resend(id, state: state, purpose: .unlock, channel: .email, to: Self.destination(of: candidate, on: .email), template: .unlockCode)
        case (FlowStep.unlockCode, _):
            switch try await checkCode(id, state: state, purpose: .unlock, code: code, owner: candidate) {
            case .refused(let outcome): return outcome
            case .accepted:
                guard let user = candidate else { return .gone }
                try await authenticator.forgetFailures(of: user.username)
                logger.info("Account unlocked by email code", metadata: ["user": "\(user.id)"])
                try await audit.record(.accountUnlocked, user: user.id, client: state.request.clientID, details: ["by": "email_code"])
                next = state.backToSignIn(username: user.username)
                try await flows.update(id, to: next)
                return .next(node(for: next, messages: [FlowMessage(level: .info, text: "Your account is unlocked. Sign in.", code: "unlocked")]))
            }
        default:
            throw OAuthError.invalidRequest("The node \(state.step) has no action \(action).")
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// From a locked-out sign-in node: send an unlock code to the account's email, if the name is an account.
    package func startUnlock(_ id: String, state: FlowStore.LoginState) async throws -> Outcome {
        let user = try await users.find(username: state.username ?? "")
        var next = state
        next.journey = .unlock(candidateID: user?.id)
        next.lockedOut = false
        next.step = FlowStep.unlockCode
        if let refused = try await sendCode(
            id, state: state, purpose: .unlock, channel: .email, to: Self.destination(of: user, on: .email),
            template: .unlockCode, resend: false)
        {
            return refused
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// How a recovery code may come: by email or text message, and by a call where the client's policy takes codes
    /// by voice (a voice gateway is set up for it).
    package func recoveryChannels(for state: FlowStore.LoginState) -> [MessageChannel] {
        let voice = settings.signOnPolicy(for: state.request.clientID).factors.contains(.voice)
        return [.email, .sms] + (voice ? [.voice] : [])
    }

    private static func recoveryChannelLabel(_ channel: MessageChannel) -> String {
        switch channel {
        case .email: "Email"
        case .sms: "Text message (SMS)"
        case .voice: "Phone call"
        }
    }

    /// Where a code for `user` goes on `channel`: only to a verified address.
    package static func destination(of user: User?, on channel: MessageChannel) -> String? {
        guard let user else { return nil }
        switch channel {
        case .email: return user.emailVerified ? user.email : nil
        case .sms, .voice: return user.phoneVerified ? user.phoneNumber : nil
        }
    }
}

extension FlowStore.LoginState {
    /// The channel a recovery's code went on, once chosen.
    package var recoveryChannel: MessageChannel? {
        if case .recovery(_, let channel) = journey { channel } else { nil }
    }
}
