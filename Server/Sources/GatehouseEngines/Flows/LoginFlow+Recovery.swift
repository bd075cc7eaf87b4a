import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Password recovery (identify → choose email or SMS → code → any enrolled second factor → new password) and
/// unlocking an account locked by failed sign-ins (a code by email). Neither says whether an account exists:
/// every identifier gets the same nodes and a code that only a real account's owner receives.
extension LoginFlow {
    package var identifierField: FlowField {
        FlowField(
            key: "username", kind: .text, label: say("flow.field.identifier.label"),
            validation: FieldValidation(maxLength: 256, message: say("flow.field.identifier.missing")), autocomplete: "username")
    }

    /// The recovery and unlock nodes.
    package func recoveryNode(_ step: StepFamily.Recovery, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let back = FlowAction(id: .cancel, kind: .link, label: say("flow.back_to_sign_in"), flow: FlowKind.login.rawValue)
        switch step {
        case .recoveryIdentify:
            var field = identifierField
            field.defaultValue = state.username
            return FlowNode(
                id: FlowStep.recoveryIdentify.rawValue, name: say("flow.recovery.name"),
                description: say("flow.recovery.description"),
                category: .recovery, fields: [field], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.continue")), back],
                messages: messages)
        case .recoveryChoose:
            let options = recoveryChannels(for: state).map { FieldOption(value: $0.rawValue, label: recoveryChannelLabel($0)) }
            return FlowNode(
                id: FlowStep.recoveryChoose.rawValue, name: say("flow.recovery.choose.name"),
                description: say("flow.recovery.choose.description", ["account": state.username ?? ""]), category: .recovery,
                fields: [FlowField(key: "method", kind: .singleChoice, label: say("flow.recovery.choose.field"), options: options, defaultValue: "email")],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.recovery.choose.submit")), back], messages: messages)
        case .resetCode:
            let account = ["account": state.username ?? ""]
            let description =
                switch state.recoveryChannel {
                case .voice: say("flow.recovery.code.description.voice", account)
                case .sms: say("flow.recovery.code.description.sms", account)
                case .email, nil: say("flow.recovery.code.description.email", account)
                }
            return FlowNode(
                id: FlowStep.resetCode.rawValue, name: state.recoveryChannel == .voice ? say("flow.code.name.voice") : say("flow.code.name.default"),
                description: description,
                category: .recovery, fields: [codeField],
                actions: [
                    FlowAction(id: .submit, kind: .submit, label: say("flow.code.verify")), resendAction,
                    FlowAction(id: .choose, kind: .submit, label: say("flow.recovery.code.another_way")),
                ], messages: messages)
        case .unlockCode:
            return FlowNode(
                id: FlowStep.unlockCode.rawValue, name: say("flow.unlock.name"),
                description: say("flow.unlock.description", ["account": state.username ?? ""]),
                category: .lockedOut, fields: [codeField],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.unlock.submit")), resendAction, back], messages: messages)
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
                // Only the account's owner could have received the code; from here on it's their sign-in, and it
                // passes the hooks at `first_factor` as a password would.
                guard let user = candidate else { return .gone }
                next.username = user.username
                let account = FlowStore.ProvenAccount(userID: user.id, methods: [channel.factor.methodReference])
                next.account = account
                logger.info("Recovery code accepted", metadata: ["user": "\(user.id)"])
                let proven = next
                return try await asFirstFactorHooksDecided(id, state: proven, user: user, account: account, proven: channel.factor) {
                    try await afterRecoveryCode(id, state: proven, user: user, channel: channel)
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
                return .next(node(for: next, messages: [FlowMessage(level: .info, text: say("flow.unlock.done"), code: "unlocked")]))
            }
        default:
            throw OAuthError.invalidRequest("The node \(state.step) has no action \(action).")
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// A recovery code to `channel` proved `user`: an enrolled second factor is asked for whatever the client's policy
    /// (recovery never skips it), then the new password.
    private func afterRecoveryCode(_ id: String, state: FlowStore.LoginState, user: User, channel: MessageChannel) async throws -> Outcome {
        var next = state
        // The address the code just went to proves nothing more, so its factors are not among the choices.
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
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Asks the hooks at `first_factor` about the account a recovery code is for, before the transaction like the
    /// password's: a recovery signs its owner in (the factor is the code's channel: `email`, `sms`).
    package mutating func askFirstFactorHooks(aboutRecoveryIn state: FlowStore.LoginState) async throws {
        guard !firstFactorHooks.targets.isEmpty, let candidateID = state.candidateID, let user = try await users.find(id: candidateID), !user.isLocked
        else { return }
        let factor = (state.recoveryChannel ?? .email).rawValue
        await passwords.askFirstFactorHooks(firstFactorHooks, about: user, factor: factor, clientID: state.request.clientID, address: source.text)
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

    private func recoveryChannelLabel(_ channel: MessageChannel) -> Phrase {
        switch channel {
        case .email: say("flow.channel.email")
        case .sms: say("flow.channel.sms")
        case .voice: say("flow.channel.voice")
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
