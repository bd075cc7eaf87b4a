import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Setting up a second factor inside a flow, when a sign-in requires or offers one, or in the enrollment journey:
/// choose what to set up (an authenticator app, a phone number, the email address); for a phone, how its codes
/// come (text message or call) and its number; for an email address that is not verified yet, the address. A code
/// sent there confirms it. Every code after a flow's first waits out the resend delay, so a flow cannot be used to
/// send messages to one number after another.
extension LoginFlow {
    /// The factors the client's policy lets people set up, the authenticator app when it names none.
    package func offeredFactors(for state: FlowStore.LoginState) -> [EnrollableFactor] {
        // Passkeys need a relying party: an issuer on an IP address has none (the configuration check says so).
        let offered = EnrollableFactor.offered(by: settings.signOnPolicy(for: state.request.clientID))
            .filter { $0 != .passkey || relyingParty != nil }
        return offered.isEmpty ? [.totp] : offered
    }

    /// The ways a phone number may get its codes under the client's policy.
    package func phoneMethods(for state: FlowStore.LoginState) -> [MessageChannel] {
        let methods = EnrollableFactor.phoneMethods(in: settings.signOnPolicy(for: state.request.clientID))
        return methods.isEmpty ? [.sms] : methods
    }

    /// Moves `state` to setting up a second factor: the choice of factor, or straight to the only one when setting
    /// one up is required. `optional` offers "Not now". Returns an outcome only when a code could not be sent.
    package func startEnrollment(_ id: String, state: inout FlowStore.LoginState, user: User, optional: Bool) async throws -> Outcome? {
        state.secondFactor.enrollmentOptional = optional
        let offered = offeredFactors(for: state)
        if offered.count == 1, !optional { return try await startEnrolling(offered[0], id: id, state: &state, user: user) }
        state.step = .enrollOffer
        return nil
    }

    /// Policy requires a second factor, the account had none enrolled, and a code just proved one of its verified
    /// addresses: when the policy lets people set up that factor, the proof enrolls it (a phone with the way the code
    /// came); otherwise the person sets up one the policy allows.
    package func enrollAfterProof(on channel: MessageChannel, id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        let policy = settings.signOnPolicy(for: state.request.clientID)
        if policy.enrollable.contains(channel.factor), let address = Self.destination(of: user, on: channel) {
            return try await enrolled(address, on: channel, id: id, state: state, user: user)
        }
        var next = state
        if let refused = try await startEnrollment(id, state: &next, user: user, optional: false) { return refused }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Moves `state` to the first step of setting up `factor`. Returns an outcome only when a code could not be sent.
    package func startEnrolling(_ factor: EnrollableFactor, id: String, state: inout FlowStore.LoginState, user: User) async throws -> Outcome? {
        state.secondFactor.enrolling = nil
        switch factor {
        case .passkey:
            try await startPasskeyEnrollment(&state, user: user)
        case .totp:
            try startTOTPEnrollment(&state)
        case .phone:
            let methods = phoneMethods(for: state)
            if methods.count == 1 {
                state.secondFactor.enrolling = PendingContact(channel: methods[0])
                state.step = .enrollPhone
            } else {
                state.step = .enrollMethod
            }
        case .email:
            // A verified address only needs to show it still receives mail; another is asked for first.
            if user.emailVerified { return try await sendEnrollmentCode(id, state: &state, to: user.email, on: .email) }
            state.secondFactor.enrolling = PendingContact(channel: .email, address: user.email)
            state.step = .enrollEmail
        }
        return nil
    }

    /// Sends the code that confirms `address` on `channel` and moves `state` to the step that takes it. Returns an
    /// outcome only when the code could not be sent (asked again within the resend delay, or too many codes).
    private func sendEnrollmentCode(_ id: String, state: inout FlowStore.LoginState, to address: String, on channel: MessageChannel) async throws -> Outcome? {
        // `resend: true` even for the first code of a number: changing the number does not skip the delay.
        if let refused = try await sendCode(id, state: state, purpose: .enrollFactor, channel: channel, to: address, template: .verificationCode, resend: true)
        {
            return refused
        }
        state.secondFactor.enrolling = PendingContact(channel: channel, address: address)
        state.step = channel == .email ? .enrollEmailCode : .enrollPhoneCode
        return nil
    }

    /// A submission on a step of setting up a second factor, for `user` (who proved to be signing in).
    package func advanceFactorEnrollment(
        _ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue], user: User
    ) async throws -> Outcome {
        var next = state
        let text = { (key: String) in values[key]?.text.trimmingCharacters(in: .whitespaces) ?? "" }
        func again(_ message: Phrase, field: String) -> Outcome {
            .retry(node(for: state, messages: [FlowMessage(level: .error, text: message, field: field, code: "invalid_value")]), .invalidInput)
        }
        switch (state.step, action) {
        case (.enrollOffer, .skip), (.enrollPasskey, .skip):
            guard state.secondFactor.enrollmentOptional else { throw OAuthError.invalidRequest("Setting up a second factor is required here.") }
            try await users.declineEnrollment(userID: user.id)
            logger.info("Second factor offer declined", metadata: ["user": "\(user.id)"])
            return try await complete(id, state: next, user: user)
        case (.enrollOffer, _):
            guard let factor = EnrollableFactor(rawValue: text("factor")), offeredFactors(for: state).contains(factor) else {
                throw OAuthError.invalidRequest("Choose one of the offered factors.")
            }
            if let refused = try await startEnrolling(factor, id: id, state: &next, user: user) { return refused }
        case (_, .choose):
            next.secondFactor.enrolling = nil
            if case .enrollment = state.journey {
                next.step = .enrollChoose
            } else {
                next.step = .enrollOffer
            }
        case (.enrollMethod, _):
            guard let method = MessageChannel(rawValue: text("method")), phoneMethods(for: state).contains(method) else {
                throw OAuthError.invalidRequest("Choose one of the offered methods.")
            }
            next.secondFactor.enrolling = PendingContact(channel: method)
            next.step = .enrollPhone
        case (.enrollPhone, _):
            guard let number = PhoneNumber(text("phone_number")) else { return again(say("flow.field.phone.hint"), field: "phone_number") }
            let method = state.secondFactor.enrolling?.channel ?? phoneMethods(for: state)[0]
            if let refused = try await sendEnrollmentCode(id, state: &next, to: number.e164, on: method) { return refused }
        case (.enrollEmail, _):
            let address = text("email").lowercased()
            guard (try? AccountInputValidation.validateEmail(address)) != nil else { return again(say("flow.field.email.invalid"), field: "email") }
            // A username that is an email address must stay the account's own.
            guard (try? AccountInputValidation.validateUsername(user.username, email: address)) != nil else {
                return again(say("flow.enroll_email.username_is_email"), field: "email")
            }
            if let refused = try await sendEnrollmentCode(id, state: &next, to: address, on: .email) { return refused }
        case (.enrollPasskey, .submit):
            return try await registerPasskey(id, state: state, values: values, user: user)
        case (.enrollPhoneCode, .change):
            next.secondFactor.enrolling?.address = nil
            next.step = .enrollPhone
        case (.enrollEmailCode, .change):
            next.step = .enrollEmail
        case (.enrollPhoneCode, .resend), (.enrollEmailCode, .resend):
            guard let pending = state.secondFactor.enrolling, let address = pending.address else { return .gone }
            return try await resend(id, state: state, purpose: .enrollFactor, channel: pending.channel, to: address, template: .verificationCode)
        case (.enrollPhoneCode, .otherMethod):
            guard let pending = state.secondFactor.enrolling, let address = pending.address,
                let other = Self.otherPhoneMethod(pending.channel, among: phoneMethods(for: state))
            else {
                throw OAuthError.invalidRequest("There is no other way to send this code.")
            }
            if let refused = try await sendEnrollmentCode(id, state: &next, to: address, on: other) { return refused }
        case (.enrollPhoneCode, _), (.enrollEmailCode, _):
            guard let address = state.secondFactor.enrolling?.address else { return .gone }
            switch try await checkCode(id, state: state, purpose: .enrollFactor, code: text("code"), owner: user) {
            case .refused(let outcome): return outcome
            case .accepted(let channel): return try await enrolled(address, on: channel, id: id, state: state, user: user)
            }
        default:
            throw OAuthError.invalidRequest("The node \(state.step) has no action \(action).")
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// The code sent to `address` on `channel` came back: the phone number or email address is the account's and
    /// enrolled, the factor counts for this sign-in, and the flow goes on to finish.
    private func enrolled(_ address: String, on channel: MessageChannel, id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        var next = state
        if channel == .email {
            let previous: String?
            do {
                // Recoverable: an address another account has sends the person back to the address step.
                previous = try await TransactionScope.recoverable { try await authenticators.enrollEmail(userID: user.id, address: address) }
            } catch let error as DatabaseError where error.isDuplicate {
                // Only whoever reads this mailbox learns that it has an account.
                next.step = .enrollEmail
                next.secondFactor.enrolling = PendingContact(channel: .email)
                try await flows.update(id, to: next)
                let message = FlowMessage(
                    level: .error, text: say("flow.enroll_email.taken"), field: "email", code: "invalid_value")
                return .retry(node(for: next, messages: [message]), .invalidInput)
            }
            logger.info("Enrolled email", metadata: ["user": "\(user.id)", "replacing": "\(previous != nil)"])
            if let previous {
                // The address that stops getting messages hears of it, in case the change was not its owner's.
                try await courier.send(
                    .emailChanged, to: previous, on: .email, service: settings.serviceName, codeLifetime: 0,
                    language: courier.language(of: user, otherwise: wording.language))
            }
        } else {
            let change = try await authenticators.enrollPhone(userID: user.id, number: address, method: channel)
            logger.info("Enrolled phone", metadata: ["user": "\(user.id)", "method": "\(channel.rawValue)", "replacing": "\(change.replaced)"])
            if let previous = change.previousNumber {
                // The number that stops getting codes hears of it, in case the change was not its owner's.
                try await courier.send(
                    .phoneChanged, to: previous, on: .sms, service: settings.serviceName, codeLifetime: 0,
                    language: courier.language(of: user, otherwise: wording.language))
            }
            if change.replaced || change.previousNumber != nil { try await notify(user, .phoneChanged) }
        }
        try await audit.record(.factorEnrolled, user: user.id, client: state.request.clientID, details: ["factor": channel.rawValue])
        next.secondFactor.enrolling = nil
        next = next.adding(channel.factor)
        if case .enrollment = state.journey { next.journey = .enrollment(done: true) }
        return try await complete(id, state: next, user: user)
    }

    /// The other way of getting a phone's codes, when the policy allows it.
    package static func otherPhoneMethod(_ method: MessageChannel, among methods: [MessageChannel]) -> MessageChannel? {
        let other: MessageChannel = method == .voice ? .sms : .voice
        return methods.contains(other) ? other : nil
    }

    /// The node of a step of setting up a phone or an email address for codes.
    package func factorEnrollmentNode(_ step: StepFamily.FactorEnrollment, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let pending = state.secondFactor.enrolling
        let back = [FlowAction(id: .choose, kind: .submit, label: say("flow.enroll.something_else"))]
        let canChooseAgain: Bool =
            if case .enrollment = state.journey { true } else { offeredFactors(for: state).count > 1 || state.secondFactor.enrollmentOptional }
        let backIfAny = canChooseAgain ? back : []
        switch step {
        case .enrollOffer:
            let offered = offeredFactors(for: state)
            let methods = phoneMethods(for: state)
            let choice = FlowField(
                key: "factor", kind: .singleChoice, label: say("flow.enroll.set_up"),
                options: offered.map { FieldOption(value: $0.rawValue, label: $0 == .phone ? phoneLabel(methods) : say($0.labelKey)) },
                defaultValue: offered.first?.rawValue)
            let later = state.secondFactor.enrollmentOptional ? [FlowAction(id: .skip, kind: .submit, label: say("flow.not_now"))] : []
            return FlowNode(
                id: FlowStep.enrollOffer.rawValue, name: say("flow.enroll.offer.name"),
                description: say("flow.enroll.offer.description", ["client": clientName]),
                category: .mfaEnrollmentRequired, fields: [choice], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.enroll.set_up"))] + later,
                messages: messages)
        case .enrollMethod:
            let choice = FlowField(
                key: "method", kind: .singleChoice, label: say("flow.enroll.method.field"),
                options: phoneMethods(for: state).map { FieldOption(value: $0.rawValue, label: methodLabel($0)) },
                defaultValue: MessageChannel.sms.rawValue)
            return FlowNode(
                id: FlowStep.enrollMethod.rawValue, name: say("flow.enroll.method.name"),
                description: say("flow.enroll.method.description"),
                category: .mfaEnrollment, fields: [choice], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.continue"))] + backIfAny,
                messages: messages)
        case .enrollPhone:
            let number = FlowField(
                key: "phone_number", kind: .phoneNumber, label: say("flow.field.phone.label"),
                validation: FieldValidation(regex: PhoneNumber.fieldPattern, message: say("flow.field.phone.hint")), autocomplete: "tel")
            return FlowNode(
                id: FlowStep.enrollPhone.rawValue, name: say("flow.enroll_phone.name"),
                description: pending?.channel == .voice ? say("flow.enroll_phone.description.voice") : say("flow.enroll_phone.description.sms"),
                category: .mfaEnrollment, fields: [number], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.enroll.send_code"))] + backIfAny,
                messages: messages)
        case .enrollPhoneCode:
            let voice = pending?.channel == .voice
            let number = pending?.address ?? ""
            var actions = [
                FlowAction(id: .submit, kind: .submit, label: say("flow.code.verify")),
                FlowAction(id: .resend, kind: .submit, label: voice ? say("flow.code.call_again") : say("flow.code.resend")),
            ]
            if let method = pending?.channel, let other = Self.otherPhoneMethod(method, among: phoneMethods(for: state)) {
                actions.append(
                    FlowAction(id: .otherMethod, kind: .submit, label: other == .voice ? say("flow.code.call_instead") : say("flow.code.text_instead")))
            }
            actions.append(FlowAction(id: .change, kind: .submit, label: say("flow.enroll_phone.change")))
            return FlowNode(
                id: FlowStep.enrollPhoneCode.rawValue, name: voice ? say("flow.code.name.voice") : say("flow.code.name.sent"),
                description: voice
                    ? say("flow.enroll_phone.code.description.voice", ["number": number])
                    : say("flow.enroll_phone.code.description.sms", ["number": number]),
                category: .mfaEnrollment, fields: [codeField], actions: actions, messages: messages)
        case .enrollEmail:
            var address = emailField
            address.defaultValue = pending?.address
            return FlowNode(
                id: FlowStep.enrollEmail.rawValue, name: say("flow.enroll_email.name"),
                description: say("flow.enroll_email.description"),
                category: .mfaEnrollment, fields: [address], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.enroll.send_code"))] + backIfAny,
                messages: messages)
        case .enrollEmailCode:
            return FlowNode(
                id: FlowStep.enrollEmailCode.rawValue, name: say("flow.code.name.sent"),
                description: say("flow.enroll_email.code.description", ["address": pending?.address ?? ""]),
                category: .mfaEnrollment, fields: [codeField],
                actions: [
                    FlowAction(id: .submit, kind: .submit, label: say("flow.code.verify")), resendAction,
                    FlowAction(id: .change, kind: .submit, label: say("flow.enroll_email.change")),
                ], messages: messages)
        }
    }

    /// How the phone choice reads with the policy's ways of getting codes.
    package func phoneLabel(_ methods: [MessageChannel]) -> Phrase {
        switch methods {
        case [.sms]: say("enroll.factor.phone.sms")
        case [.voice]: say("enroll.factor.phone.voice")
        default: say(EnrollableFactor.phone.labelKey)
        }
    }

    package func methodLabel(_ method: MessageChannel) -> Phrase {
        method == .voice ? say("enroll.method.voice") : say("enroll.method.sms")
    }
}
