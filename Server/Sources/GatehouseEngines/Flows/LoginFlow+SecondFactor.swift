import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// The second-factor steps of the login flow: choose a factor, enter its code, or enroll TOTP when policy
/// requires a second factor and the user has none (phone numbers and email addresses are set up in
/// `LoginFlow+FactorEnrollment.swift`).
extension LoginFlow {
    /// The `acr` value of a sign-in with two factors; an authorization request that asks for it (`acr_values`)
    /// gets a second factor whatever the policy.
    package static let multiFactorACR = "urn:gatehouse:acr:mfa"
    package static let passwordACR = "urn:gatehouse:acr:password"

    /// The `acr` of a sign-in made with `methods` (its `amr`), as ID tokens and JWT access tokens say it.
    package static func acr(for methods: [String]) -> String {
        methods.contains("mfa") ? multiFactorACR : passwordACR
    }

    package var totpCodeField: FlowField {
        FlowField(
            key: "code", kind: .oneTimeCode, label: say("flow.field.code.label"),
            validation: FieldValidation(regex: "[0-9]{6}", message: say("flow.field.code.digits", ["digits": "6"])), autocomplete: "one-time-code")
    }

    package var recoveryCodeField: FlowField {
        FlowField(
            key: "code", kind: .text, label: say("factor.recovery_code"),
            validation: FieldValidation(maxLength: 32, message: say("flow.field.recovery_code.missing")), autocomplete: "off")
    }

    /// The password was right: ask for a second factor when policy or the request wants one, else finish.
    package func afterPassword(_ id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        try await afterFirstFactor(id, state: state, user: user, account: FlowStore.ProvenAccount(userID: user.id, methods: ["pwd"]))
    }

    /// `account` proved one factor (a password, another identity provider): ask for a second factor when policy or the
    /// request wants one, else finish. `plan` is the second factor the caller already worked out, if it did.
    package func afterFirstFactor(
        _ id: String, state: FlowStore.LoginState, user: User, account: FlowStore.ProvenAccount, plan given: SecondFactorPlan?? = nil
    ) async throws -> Outcome {
        var next = state
        next.username = user.username
        next.account = account
        // Changing two-step verification asks for a second factor whatever the client's policy.
        let changing = if case .enrollment = state.journey { true } else { false }
        let planned: SecondFactorPlan?
        if let given { planned = given } else { planned = try await secondFactorPlan(for: state.request, user: user, stepUp: changing) }
        guard let plan = planned else { return try await complete(id, state: next, user: user) }
        if plan.factors.isEmpty {
            // Nothing to challenge: set one up (or, when only offered, answer "Not now").
            if let refused = try await startEnrollment(id, state: &next, user: user, optional: plan.offerEnrollment) { return refused }
        } else {
            next.secondFactor.factors = plan.factors
            // The enrollment journey asks what to set up once the person has proven who they are.
            next.secondFactor.enrollAfterCode = plan.mustEnroll && !changing
            if plan.factors.count == 1 {
                if let refused = try await challenge(id, state: &next, factor: plan.factors[0], user: user) { return refused }
            } else {
                next.step = FlowStep.chooseFactor
            }
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Which second factors a sign-in needs, and whether one must be set up after them.
    package struct SecondFactorPlan: Sendable, Equatable {
        /// The factors the user may choose from; empty when none is available and one is set up right away.
        package var factors: [SecondFactor]
        /// Policy requires a second factor but the user enrolled none: after a delivered code to a verified address
        /// proves it's them, they set one up.
        package var mustEnroll: Bool
        /// No factor is needed, but the person is offered to set one up now, and may answer "Not now".
        package var offerEnrollment = false
    }

    /// The second factors to ask `user` for when signing in for `request` (by the client's policy, or because
    /// the request asks for the multi-factor `acr`, or `stepUp` is set): `nil` when none is needed. Enrolled factors (TOTP and its
    /// recovery codes, a phone number, the email address) decide `if_enrolled`; a verified email or phone adds a
    /// delivered code as a choice when the policy allows it. An enrolled phone's chosen way comes before the other. The store is read only when the answer depends on it, so a password sign-in under
    /// the default policy costs no extra query.
    ///
    /// `proven` is a factor the sign-in's first step already amounts to (an app bound by a code to the address
    /// proves the mailbox): it is not offered again as the second.
    package func secondFactorPlan(
        for request: AuthorizationRequest, user: User, stepUp forced: Bool = false, proven: SecondFactor? = nil
    ) async throws -> SecondFactorPlan? {
        let policy = settings.signOnPolicy(for: request.clientID)
        let stepUp = forced || request.acrValues?.contains(Self.multiFactorACR) == true
        if policy.secondFactor == .off && !stepUp { return nil }
        let enrolled = try await authenticators.enrolledFactors(userID: user.id)
        if policy.secondFactor == .ifEnrolled && !stepUp && enrolled.isEmpty {
            guard policy.optionalEnrollment, !EnrollableFactor.offered(by: policy).isEmpty, !declinedRecently(user, policy: policy) else { return nil }
            return SecondFactorPlan(factors: [], mustEnroll: true, offerEnrollment: true)
        }
        var available = Set(enrolled.filter { $0 == .recoveryCode || policy.factors.contains($0) })
        if policy.factors.contains(.email), user.emailVerified { available.insert(.email) }
        for phone in [SecondFactor.sms, .voice] where policy.factors.contains(phone) && user.phoneVerified && user.phoneNumber != nil {
            available.insert(phone)
        }
        if let proven { available.remove(proven) }
        var ordered = SecondFactor.allCases.filter(available.contains)
        if let voice = ordered.firstIndex(of: .voice), let sms = ordered.firstIndex(of: .sms), enrolled.first(where: \.usesPhone) == .voice {
            ordered.swapAt(sms, voice)
        }
        return SecondFactorPlan(factors: ordered, mustEnroll: enrolled.isEmpty && !EnrollableFactor.offered(by: policy).isEmpty)
    }

    /// Whether `user` answered "Not now" to an offer to set up a second factor within the policy's reminder period.
    private func declinedRecently(_ user: User, policy: SignOnPolicy) -> Bool {
        guard let declined = user.enrollmentDeclinedAt else { return false }
        return clock.now() - declined < Int64(policy.enrollmentReminderDays) * 86_400
    }

    /// Moves `state` to the challenge for `factor`, sending a code first when the factor is delivered.
    /// Returns an outcome only when the code could not be sent.
    /// `resend` holds the code back within the resend delay, as for switching between text and call: a flow cannot
    /// be used to ring a number again and again.
    package func challenge(_ id: String, state: inout FlowStore.LoginState, factor: SecondFactor, user: User, resend: Bool = false) async throws -> Outcome? {
        if factor == .passkey {
            try await startPasskeyChallenge(&state, user: user)
            return nil
        }
        if factor == .push { return try await startPush(id, state: &state, user: user) }
        guard let channel = factor.channel else {
            state.step = Self.challengeStep(for: factor)
            return nil
        }
        let destination = channel == .email ? user.email : user.phoneNumber
        // A refusal shows the node the person is at, so the step changes only once the code went out.
        if let refused = try await sendCode(id, state: state, purpose: .secondFactor, channel: channel, to: destination, template: .signInCode, resend: resend)
        {
            return refused
        }
        state.step = Self.challengeStep(for: factor)
        state.secondFactor.sentTo = destination.map { Self.masked($0, on: channel) }
        return nil
    }

    /// A submission on a second-factor node; `state.userID` is set.
    package func advanceSecondFactor(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        guard let userID = state.account?.userID, let user = try await users.find(id: userID) else {
            _ = try await flows.finish(id)
            return .gone
        }
        if user.isLocked { return .retry(node(for: state, messages: [FlowMessage(level: .error, text: say(LoginMessages.locked), code: "locked")]), .locked) }
        var next = state
        let code = values["code"]?.text.trimmingCharacters(in: .whitespaces) ?? ""
        switch (state.step, action) {
        // Setting up a factor has its own "choose" (back to what to set up), so its steps go first.
        case (.enrollOffer, _), (.enrollMethod, _), (.enrollPhone, _), (.enrollPhoneCode, _), (.enrollEmail, _), (.enrollEmailCode, _),
            (.enrollPasskey, _):
            return try await advanceFactorEnrollment(id, state: state, action: action, values: values, user: user)
        case (_, .choose):
            next.step = FlowStep.chooseFactor
        case (FlowStep.chooseFactor, _):
            guard let factor = values["factor"].flatMap({ SecondFactor(rawValue: $0.text) }), state.secondFactor.factors.contains(factor) else {
                throw OAuthError.invalidRequest("Choose one of the offered factors.")
            }
            if let refused = try await challenge(id, state: &next, factor: factor, user: user) { return refused }
        case (FlowStep.smsCode, .otherMethod), (FlowStep.voiceCode, .otherMethod):
            let other: SecondFactor = state.step == .smsCode ? .voice : .sms
            guard state.secondFactor.factors.contains(other) else { throw OAuthError.invalidRequest("There is no other way to send this code.") }
            if let refused = try await challenge(id, state: &next, factor: other, user: user, resend: true) { return refused }
        case (FlowStep.emailCode, .resend), (FlowStep.smsCode, .resend), (FlowStep.voiceCode, .resend):
            let channel = Self.deliveredChannel(at: state.step)
            return try await resend(
                id, state: state, purpose: .secondFactor, channel: channel,
                to: channel == .email ? user.email : user.phoneNumber, template: .signInCode)
        case (FlowStep.emailCode, _), (FlowStep.smsCode, _), (FlowStep.voiceCode, _):
            switch try await checkCode(id, state: state, purpose: .secondFactor, code: code, owner: user) {
            case .refused(let outcome): return outcome
            case .accepted(let channel):
                next = next.adding(channel.factor)
                guard next.secondFactor.enrollAfterCode else { return try await complete(id, state: next, user: user) }
                next.secondFactor.enrollAfterCode = false
                return try await enrollAfterProof(on: channel, id: id, state: next, user: user)
            }
        case (FlowStep.totp, _):
            guard let guess = try await takeCodeCheck(id, state: state) else { return try await guessesUsedUp(id) }
            let checked = try await limitedGuess(.secondFactor, state: state, owner: user) { () async throws -> (AuthenticatorStore.CodeCheck, GuessVerdict) in
                let result = try await authenticators.verifyTOTP(userID: user.id, code: code)
                return (result, result == .accepted ? .correct : .wrong)
            }
            guard case .checked(let result) = checked else { return Self.refusal(of: checked) }
            switch result {
            case .accepted:
                try await flows.clearCodeChecks(id)
                return try await complete(id, state: next.adding(.totp), user: user)
            case .replayed: return try await wrongCode(id, state: state, message: say(LoginMessages.replayedCode), guess: guess)
            case .rejected: return try await wrongCode(id, state: state, message: say(LoginMessages.invalidCode), guess: guess)
            }
        case (FlowStep.recoveryCode, _):
            guard let guess = try await takeCodeCheck(id, state: state) else { return try await guessesUsedUp(id) }
            let checked = try await limitedGuess(.secondFactor, state: state, owner: user) { () async throws -> (Bool, GuessVerdict) in
                let redeemed = try await authenticators.redeemRecoveryCode(userID: user.id, code: code)
                return (redeemed, redeemed ? .correct : .wrong)
            }
            guard case .checked(let redeemed) = checked else { return Self.refusal(of: checked) }
            guard redeemed else {
                return try await wrongCode(id, state: state, message: say("flow.error.recovery_code"), guess: guess)
            }
            try await flows.clearCodeChecks(id)
            try await audit.record(.recoveryCodeUsed, user: user.id, client: state.request.clientID)
            return try await complete(id, state: next.adding(.recoveryCode), user: user)
        case (.passkey, _):
            return try await usePasskey(id, state: state, values: values, user: user)
        case (FlowStep.push, _):
            return try await advancePush(id, state: state, action: action, user: user)
        case (FlowStep.enrollTOTP, _):
            guard let generator = pendingTOTP(state) else { return .gone }
            guard let guess = try await takeCodeCheck(id, state: state) else { return try await guessesUsedUp(id) }
            guard let step = generator.matchingStep(for: code, at: clock.now()) else {
                return try await wrongCode(
                    id, state: state, message: say("flow.error.totp_enrollment"),
                    guess: guess)
            }
            try await flows.clearCodeChecks(id)
            let replacing = if case .enrollment = state.journey { true } else { false }
            try await authenticators.addTOTP(userID: user.id, generator, usedStep: step, replacing: replacing)
            let codes = try await authenticators.replaceRecoveryCodes(userID: user.id, endingSessions: false)
            logger.info("Enrolled TOTP", metadata: ["user": "\(user.id)", "replacing": "\(replacing)"])
            try await audit.record(
                .factorEnrolled, user: user.id, client: state.request.clientID, details: ["factor": "totp", "replacing": "\(replacing)"])
            if replacing {
                next.journey = .enrollment(done: true)
                try await notify(user, .authenticatorChanged)
            }
            next = next.adding(.totp)
            next.secondFactor.pendingSecret = nil
            try showRecoveryCodes(codes, in: &next)
        case (FlowStep.recoveryCodes, _):
            next.secondFactor.recoveryCodesToShow = nil
            return try await complete(id, state: next, user: user)
        default:
            throw OAuthError.invalidRequest("The node \(state.step) has no action \(action).")
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Counts one code check against the flow before the code is looked at (see ``FlowStore/takeCodeCheck(_:limit:)``):
    /// `nil` when the policy's limit of wrong codes in a row is used up, or the flow is gone.
    package func takeCodeCheck(_ id: String, state: FlowStore.LoginState) async throws -> Int? {
        try await flows.takeCodeCheck(id, limit: settings.signOnPolicy(for: state.request.clientID).maxCodeAttempts)
    }

    /// No guess was left: the flow ends (or had already ended, finished by another submission).
    package func guessesUsedUp(_ id: String) async throws -> Outcome {
        try await flows.finish(id) ? .failed(say(LoginMessages.tooManyCodes).text) : .gone
    }

    /// A wrong code, which was the flow's `guess`-th check in a row (the account's and the client address's counts
    /// took it already, in ``limitedGuess(_:state:owner:check:)``); the one that uses up the policy's limit ends the flow.
    package func wrongCode(_ id: String, state: FlowStore.LoginState, message: Phrase, guess: Int) async throws -> Outcome {
        try await audit.record(
            .codeRejected, user: state.account?.userID ?? state.candidateID ?? state.federation.candidateID, client: state.request.clientID,
            details: ["step": state.step.rawValue])
        if guess >= settings.signOnPolicy(for: state.request.clientID).maxCodeAttempts {
            _ = try await flows.finish(id)
            logger.notice("Sign-in ended after too many wrong codes", metadata: ["user": "\(state.account?.userID ?? "")"])
            return .failed(say(LoginMessages.tooManyCodes).text)
        }
        return .retry(node(for: state, messages: [FlowMessage(level: .error, text: message, field: "code", code: "invalid_code")]), .invalidCode)
    }

    package static func challengeStep(for factor: SecondFactor) -> FlowStep {
        switch factor {
        case .passkey: FlowStep.passkey
        case .totp: FlowStep.totp
        case .email: FlowStep.emailCode
        case .sms: FlowStep.smsCode
        case .voice: FlowStep.voiceCode
        case .recoveryCode: FlowStep.recoveryCode
        case .push: FlowStep.push
        }
    }

    /// The channel the code of a delivered-code step goes on.
    package static func deliveredChannel(at step: FlowStep) -> MessageChannel {
        switch step {
        case .smsCode: .sms
        case .voiceCode: .voice
        default: .email
        }
    }

    /// Moves `state` to TOTP enrollment with a new secret, sealed in the flow until a code confirms it.
    package func startTOTPEnrollment(_ state: inout FlowStore.LoginState) throws {
        state.secondFactor.pendingSecret = try authenticators.box.seal(Data(AuthenticatorStore.newTOTP().secret))
        state.step = FlowStep.enrollTOTP
    }

    /// Moves `state` to the node that shows new recovery codes once (sealed in the flow until then).
    package func showRecoveryCodes(_ codes: [String], in state: inout FlowStore.LoginState) throws {
        state.secondFactor.recoveryCodesToShow = try authenticators.box.seal(Data(codes.joined(separator: " ").utf8))
        state.step = FlowStep.recoveryCodes
    }

    private func pendingTOTP(_ state: FlowStore.LoginState) -> OneTimePassword? {
        guard let sealed = state.secondFactor.pendingSecret, let secret = try? authenticators.box.open(sealed) else { return nil }
        return OneTimePassword(secret: Array(secret))
    }

    /// The second-factor node `state` is at.
    package func secondFactorNode(_ step: StepFamily.SecondFactor, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let factors = state.secondFactor.factors
        let verify = FlowAction(id: .submit, kind: .submit, label: say("flow.code.verify"))
        let another = factors.count > 1 ? [FlowAction(id: .choose, kind: .submit, label: say("flow.second_factor.another"))] : []
        switch step {
        case .chooseFactor:
            let choice = FlowField(
                key: "factor", kind: .singleChoice, label: say("flow.second_factor.choose.field"),
                options: factors.map { FieldOption(value: $0.rawValue, label: say($0.labelKey)) }, defaultValue: factors.first?.rawValue)
            return FlowNode(
                id: FlowStep.chooseFactor.rawValue, name: say("flow.second_factor.choose.name"),
                description: say("flow.second_factor.choose.description", ["client": clientName]),
                category: .mfaRequired, fields: [choice], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.continue"))],
                messages: messages)
        case .totp:
            return FlowNode(
                id: FlowStep.totp.rawValue, name: say("flow.second_factor.totp.name"),
                description: say("flow.second_factor.totp.description", ["service": settings.serviceName]),
                category: .mfaChallenge, fields: [totpCodeField], actions: [verify] + another, messages: messages)
        case .emailCode:
            let place = state.secondFactor.sentTo ?? ""
            return FlowNode(
                id: state.step.rawValue, name: say("flow.code.name.sent"),
                description: say("flow.second_factor.code.description", ["place": place, "client": clientName]),
                category: .mfaChallenge, fields: [codeField], actions: [verify, resendAction] + another, messages: messages)
        case .smsCode:
            let place = state.secondFactor.sentTo ?? ""
            let call = factors.contains(.voice) ? [FlowAction(id: .otherMethod, kind: .submit, label: say("flow.code.call_instead"))] : []
            return FlowNode(
                id: state.step.rawValue, name: say("flow.code.name.sent"),
                description: say("flow.second_factor.code.description", ["place": place, "client": clientName]),
                category: .mfaChallenge, fields: [codeField], actions: [verify, resendAction] + call + another, messages: messages)
        case .voiceCode:
            let place = state.secondFactor.sentTo ?? ""
            let text = factors.contains(.sms) ? [FlowAction(id: .otherMethod, kind: .submit, label: say("flow.code.text_instead"))] : []
            return FlowNode(
                id: FlowStep.voiceCode.rawValue, name: say("flow.code.name.voice"),
                description: say("flow.second_factor.voice.description", ["place": place, "client": clientName]),
                category: .mfaChallenge, fields: [codeField],
                actions: [verify, FlowAction(id: .resend, kind: .submit, label: say("flow.code.call_again"))] + text + another, messages: messages)
        case .recoveryCode:
            return FlowNode(
                id: FlowStep.recoveryCode.rawValue, name: say("flow.second_factor.recovery_code.name"),
                description: say("flow.second_factor.recovery_code.description"),
                category: .mfaChallenge, fields: [recoveryCodeField], actions: [verify] + another, messages: messages)
        case .enrollTOTP:
            let generator = pendingTOTP(state) ?? OneTimePassword(secret: [])
            let key = Base32.encode(generator.secret)
            let grouped = stride(from: 0, to: key.count, by: 4).map { String(key.dropFirst($0).prefix(4)) }.joined(separator: " ")
            let fields = [
                FlowField(
                    key: "otpauth", kind: .qrCode, label: say("flow.enroll_totp.qr_code"), required: false,
                    defaultValue: generator.provisioningURI(issuer: settings.serviceName, account: state.username ?? "")),
                FlowField(key: "secret", kind: .label, label: say("flow.enroll_totp.key", ["key": grouped]), required: false),
                totpCodeField,
            ]
            let why =
                if case .enrollment = state.journey {
                    say("flow.enroll_totp.description.replacing")
                } else {
                    say("flow.enroll_totp.description.default", ["client": clientName])
                }
            return FlowNode(
                id: FlowStep.enrollTOTP.rawValue, name: say("flow.enroll_totp.name"), description: why,
                category: .mfaEnrollment, fields: fields, actions: [verify], messages: messages)
        case .recoveryCodes:
            let codes =
                state.secondFactor.recoveryCodesToShow.flatMap { try? authenticators.box.open($0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return FlowNode(
                id: FlowStep.recoveryCodes.rawValue, name: say("flow.recovery_codes.name"),
                description: say("flow.recovery_codes.description"),
                category: .mfaEnrollment, fields: [FlowField(key: "recovery_codes", kind: .label, label: codes, required: false)],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.recovery_codes.saved"))], messages: messages)
        }
    }

}
