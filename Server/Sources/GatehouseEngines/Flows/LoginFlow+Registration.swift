import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Self-service registration: profile and password, then the email confirmed by code (and the phone, when
/// given, by SMS). The account is created only once confirmed, so an abandoned registration leaves nothing
/// behind; then the person is signed in.
extension LoginFlow {
    package var emailField: FlowField {
        FlowField(
            key: "email", kind: .text, label: say("flow.field.email.label"),
            validation: FieldValidation(maxLength: 254, regex: "[^@\\s]+@[^@\\s]+\\.[^@\\s]+", message: say("flow.field.email.invalid")),
            autocomplete: "email")
    }

    /// The profile fields the registration policy asks for.
    package var registrationFields: [FlowField] {
        let name = { (key: String, label: Phrase, missing: Phrase, autocomplete: String) in
            FlowField(
                key: key, kind: .text, label: label, validation: FieldValidation(minLength: 1, maxLength: 100, message: missing), autocomplete: autocomplete)
        }
        var fields = [
            name("given_name", say("flow.field.given_name.label"), say("flow.field.given_name.missing"), "given-name"),
            name("family_name", say("flow.field.family_name.label"), say("flow.field.family_name.missing"), "family-name"),
            emailField,
        ]
        if settings.registration.collectPhone {
            fields.append(
                FlowField(
                    key: "phone_number", kind: .phoneNumber, label: say("flow.field.phone_optional"), required: false,
                    validation: FieldValidation(regex: PhoneNumber.fieldPattern, message: say("flow.field.phone.hint")),
                    autocomplete: "tel"))
        }
        var username = usernameField
        username.validation = FieldValidation(
            minLength: 1, maxLength: 64, regex: "[A-Za-z0-9._@-]{1,64}", message: say("flow.field.username.rules"))
        var password = newPasswordField
        password.label = say("flow.field.password.label").text
        password.labelID = "flow.field.password.label"
        return fields + [username, password]
    }

    /// The registration nodes.
    package func registrationNode(_ step: StepFamily.Registration, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let back = FlowAction(id: .cancel, kind: .link, label: say("flow.registration.back"), flow: FlowKind.login.rawValue)
        let pending = state.pendingRegistration
        switch step {
        case .register:
            var fields = registrationFields
            if let pending {
                let known = [
                    "given_name": pending.profile.givenName, "family_name": pending.profile.familyName, "email": pending.profile.email,
                    "phone_number": pending.profile.phoneNumber, "username": pending.username,
                ]
                for index in fields.indices { fields[index].defaultValue = known[fields[index].key] ?? nil }
            }
            return FlowNode(
                id: FlowStep.register.rawValue, name: say("flow.registration.name"),
                description: say("flow.registration.description", ["client": state.clientName ?? state.request.clientID]),
                category: .registration, fields: fields,
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.registration.submit"))] + identityProviderActions(for: state) + [back],
                messages: messages)
        case .verifyEmail:
            return FlowNode(
                id: FlowStep.verifyEmail.rawValue, name: say("flow.registration.verify_email.name"),
                description: say("flow.registration.verify_email.description", ["address": pending?.profile.email ?? ""]),
                category: .verification, fields: [codeField],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.confirm")), resendAction], messages: messages)
        case .verifyPhone:
            return FlowNode(
                id: FlowStep.verifyPhone.rawValue, name: say("flow.registration.verify_phone.name"),
                description: say("flow.registration.verify_phone.description", ["number": pending?.profile.phoneNumber ?? ""]),
                category: .verification, fields: [codeField],
                actions: [
                    FlowAction(id: .submit, kind: .submit, label: say("flow.confirm")), resendAction,
                    FlowAction(id: .skip, kind: .submit, label: say("flow.registration.verify_phone.skip")),
                ], messages: messages)
        }
    }

    /// A submission on a registration node.
    package func advanceRegistration(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        var next = state
        switch (state.step, action) {
        case (_, .cancel):
            next = state.backToSignIn(username: nil)
        case (FlowStep.register, _):
            return try await register(id, state: state, values: values)
        case (FlowStep.verifyEmail, .resend):
            guard let pending = state.pendingRegistration else { return .gone }
            return try await resend(
                id, state: state, purpose: .verifyEmail, channel: .email, to: pending.profile.email,
                template: pending.emailTaken ? .accountExists : .verificationCode)
        case (FlowStep.verifyPhone, .resend):
            guard let phone = state.pendingRegistration?.profile.phoneNumber else { return .gone }
            return try await resend(id, state: state, purpose: .verifyPhone, channel: .sms, to: phone, template: .verificationCode)
        case (FlowStep.verifyPhone, .skip):
            next.updateRegistration { $0.profile.phoneNumber = nil }
            return try await createAccount(id, state: next)
        case (FlowStep.verifyEmail, _), (FlowStep.verifyPhone, _):
            let purpose: OneTimeCodeStore.Purpose = state.step == FlowStep.verifyEmail ? .verifyEmail : .verifyPhone
            switch try await checkCode(id, state: state, purpose: purpose, code: values["code"]?.text ?? "") {
            case .refused(let outcome): return outcome
            case .accepted:
                next.updateRegistration { pending in
                    if purpose == .verifyEmail { pending.emailVerified = true } else { pending.phoneVerified = true }
                }
                return try await afterVerification(id, state: next)
            }
        default:
            throw OAuthError.invalidRequest("The node \(state.step) has no action \(action).")
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Checks the profile and password, then sends the email code (or creates the account right away when the
    /// policy does not verify email).
    private func register(_ id: String, state: FlowStore.LoginState, values: [String: FieldValue]) async throws -> Outcome {
        let text = { (key: String) in values[key]?.text.trimmingCharacters(in: .whitespaces) ?? "" }
        let phone = settings.registration.collectPhone ? text("phone_number") : ""
        let number = PhoneNumber(phone)
        var profile = registrationProfile(from: values)
        let username = text("username").lowercased()
        let password = values["new_password"]?.text ?? ""
        var next = state
        func again(_ text: Phrase, field: String) -> Outcome {
            // Shown again with what was typed (never the password); nothing is stored.
            next.journey = .registration(
                pending: PendingRegistration(
                    username: username, profile: profile, sealedPasswordHash: "", emailVerified: false,
                    phoneVerified: false, emailTaken: false))
            return .retry(node(for: next, messages: [FlowMessage(level: .error, text: text, field: field, code: "invalid_value")]), .invalidInput)
        }
        if (try? AccountInputValidation.validateEmail(profile.email)) == nil { return again(say("flow.field.email.invalid"), field: "email") }
        if !phone.isEmpty, number == nil { return again(say("flow.field.phone.hint"), field: "phone_number") }
        if (try? AccountInputValidation.validateUsername(username, email: profile.email)) == nil {
            return again(
                username.contains("@") ? say("flow.field.username.own_email") : say("flow.field.username.rules"), field: "username")
        }
        if let problem = settings.passwords.passwordProblem(with: password, username: username, email: profile.email) {
            return again(say(problem.key, problem.arguments), field: "new_password")
        }
        // Usernames are public names, so saying one is taken reveals little; emails are not: a taken email is
        // handled below exactly like a free one, and its owner gets a notice instead of a code.
        if try await users.find(username: username) != nil { return again(say("flow.field.username.taken"), field: "username") }
        switch passwords.registration {
        case .allow(let names): profile = names.applied(to: profile)
        case .deny(let message):
            logger.info("A hook refused a registration")
            return refusedRegistration(next, message ?? say("flow.registration.denied").text, code: "registration_denied")
        case .unavailable:
            return refusedRegistration(next, say("flow.registration.unavailable").text, code: "temporarily_unavailable")
        }
        // An address no one proved does not keep its owner out: with verification on, the code proves it and claims it.
        let emailTaken = try await users.emailIsTaken(profile.email, unproven: !settings.registration.verifyEmail)
        guard let hash = passwords.newPasswordHash else { throw FlowEngineError.passwordNotPrepared }
        next.journey = .registration(
            pending: PendingRegistration(
                username: username, profile: profile, sealedPasswordHash: try authenticators.box.seal(Data(hash.utf8)),
                emailVerified: false, phoneVerified: false, emailTaken: emailTaken))
        next.username = username
        guard settings.registration.verifyEmail || emailTaken else { return try await afterVerification(id, state: next) }
        if let refused = try await sendCode(
            id, state: state, purpose: .verifyEmail, channel: .email, to: profile.email,
            template: emailTaken ? .accountExists : .verificationCode, resend: false)
        {
            return refused
        }
        if emailTaken { logger.notice("Registration attempted with an email that has an account; its owner was told") }
        next.step = FlowStep.verifyEmail
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// The profile a registration form gives: what the person typed, trimmed; the phone number in E.164 when the policy
    /// collects one.
    package func registrationProfile(from values: [String: FieldValue]) -> UserProfile {
        let text = { (key: String) in values[key]?.text.trimmingCharacters(in: .whitespaces) ?? "" }
        let phone = settings.registration.collectPhone ? PhoneNumber(text("phone_number"))?.e164 : nil
        return UserProfile(email: text("email").lowercased(), givenName: text("given_name"), familyName: text("family_name"), phoneNumber: phone)
    }

    /// The registration form again with what a hook said (or that no hook answered), and nothing stored.
    private func refusedRegistration(_ state: FlowStore.LoginState, _ text: String, code: String) -> Outcome {
        .retry(node(for: state, messages: [FlowMessage(level: .error, text: text, code: code)]), .invalidInput)
    }

    /// Someone just proved `email` (a code to it, or a provider trusted for addresses): an account holding it without
    /// having proved it gives it up, so that its owner is not kept out by whoever typed it first.
    package func claimProvenEmail(_ email: String, clientID: String) async throws {
        guard let holder = try await users.releaseUnprovenEmail(email) else { return }
        logger.notice("An unproven address was claimed by someone who proved it", metadata: ["user": "\(holder.id)"])
        try await audit.record(
            .accountUpdated, user: holder.id, client: clientID, details: ["email.before": email, "email.after": holder.email, "by": "address_claimed"])
    }

    /// After the email (or phone) is confirmed: confirm the phone next if one was given, else create the account.
    private func afterVerification(_ id: String, state: FlowStore.LoginState) async throws -> Outcome {
        guard let pending = state.pendingRegistration else { return .gone }
        if let phone = pending.profile.phoneNumber, !pending.phoneVerified {
            var next = state
            if let refused = try await sendCode(id, state: state, purpose: .verifyPhone, channel: .sms, to: phone, template: .verificationCode, resend: false) {
                return refused
            }
            next.step = FlowStep.verifyPhone
            try await flows.update(id, to: next)
            return .next(node(for: next))
        }
        return try await createAccount(id, state: state)
    }

    /// Creates the confirmed account and signs it in (enrolling TOTP first when the client's policy requires it).
    private func createAccount(_ id: String, state: FlowStore.LoginState) async throws -> Outcome {
        guard let pending = state.pendingRegistration, !pending.emailTaken else { return .gone }
        let hash = String(decoding: try authenticators.box.open(pending.sealedPasswordHash), as: UTF8.self)
        let user: User
        do {
            // Recoverable: a duplicate sends the person back to the form, and the submission still commits.
            user = try await TransactionScope.recoverable {
                if pending.emailVerified { try await claimProvenEmail(pending.profile.email, clientID: state.request.clientID) }
                return try await users.create(
                    username: pending.username, profile: pending.profile, passwordHash: hash,
                    emailVerified: pending.emailVerified, phoneVerified: pending.phoneVerified)
            }
        } catch let error as DatabaseError where error.isDuplicate {
            // Taken between the form and the code: back to the form.
            var again = state
            again.step = FlowStep.register
            try await flows.update(id, to: again)
            return .retry(
                node(
                    for: again,
                    messages: [FlowMessage(level: .error, text: say("flow.field.username.taken"), field: "username", code: "invalid_value")]),
                .invalidInput)
        }
        logger.info("Account registered", metadata: ["user": "\(user.id)"])
        try await audit.record(.accountCreated, user: user.id, client: state.request.clientID, details: ["by": "registration"])
        var next = state
        next.journey = .registration(pending: nil)
        next.username = user.username
        next.account = FlowStore.ProvenAccount(userID: user.id, methods: ["pwd"], passwordSettled: true)
        if settings.signOnPolicy(for: state.request.clientID).secondFactor == .required {
            if let refused = try await startEnrollment(id, state: &next, user: user, optional: false) { return refused }
        } else if offeredFactors(for: next).contains(.passkey) {
            // Where passkeys may be set up, a new account is offered one right away; "Not now" finishes.
            next.secondFactor.enrollmentOptional = true
            try await startPasskeyEnrollment(&next, user: user)
        } else {
            return try await complete(id, state: next, user: user)
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }
}

extension FlowStore.LoginState {
    /// The registration waiting for its codes, once the form was accepted.
    package var pendingRegistration: PendingRegistration? {
        if case .registration(let pending) = journey { pending } else { nil }
    }

    /// Changes the pending registration; nothing when there is none.
    package mutating func updateRegistration(_ change: (inout PendingRegistration) -> Void) {
        guard var pending = pendingRegistration else { return }
        change(&pending)
        journey = .registration(pending: pending)
    }
}
