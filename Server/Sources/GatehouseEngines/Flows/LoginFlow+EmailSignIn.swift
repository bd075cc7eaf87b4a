import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Signing in with a code sent by email instead of a password (`email_sign_in` in the sign-on policy): the address,
/// then the code, or the message's link opened in the browser that asked. Like recovery it never says whether the
/// address has an account: every address gets the same nodes, and a code that only an account's verified address
/// (or, with registration on, an address without an account) receives. The code proves one factor; the sign-on
/// policy's second factor follows as after a password.
extension LoginFlow {
    /// Where the message's link goes: the hosted page submits its code when the browser is the one that asked.
    package static let emailLinkPath = "/login/email"

    /// The sign-in node's "Email me a sign-in code", when the client's policy offers it.
    func emailSignInAction(for state: FlowStore.LoginState) -> [FlowAction] {
        guard case .signIn = state.journey, settings.signOnPolicy(for: state.request.clientID).emailSignIn else { return [] }
        return [FlowAction(id: .emailCode, kind: .submit, label: say("flow.email_sign_in.start"))]
    }

    /// The address and code nodes.
    package func emailSignInNode(_ step: StepFamily.EmailSignIn, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let back = FlowAction(id: .cancel, kind: .submit, label: say("flow.email_sign_in.use_password"))
        switch step {
        case .address:
            var field = emailField
            field.label = say("flow.field.email_address").text
            field.labelID = "flow.field.email_address"
            field.defaultValue = state.emailSignInAddress
            return FlowNode(
                id: FlowStep.emailSignIn.rawValue, name: say("flow.email_sign_in.name"),
                description: say("flow.email_sign_in.description", ["client": clientName]),
                category: .signIn, fields: [field], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.email_sign_in.submit")), back],
                messages: messages)
        case .code:
            return FlowNode(
                id: FlowStep.emailSignInCode.rawValue, name: say("flow.email_sign_in.code.name"),
                description: say("flow.email_sign_in.code.description", ["address": state.emailSignInAddress ?? ""]),
                category: .verification, fields: [codeField],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.sign_in.submit")), resendAction, back], messages: messages)
        }
    }

    /// From the sign-in node: ask for the address (filled in when the username typed was one).
    func startEmailSignIn(_ id: String, state: FlowStore.LoginState, typed: String?) async throws -> Outcome {
        var next = state
        let typed = (typed ?? state.username)?.trimmingCharacters(in: .whitespaces)
        next.journey = .emailSignIn(address: typed?.contains("@") == true ? typed ?? "" : "", candidateID: nil)
        next.step = FlowStep.emailSignIn
        next.lockedOut = false
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// A submission on the address or code node.
    package func advanceEmailSignIn(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        if action == .cancel {
            let next = state.backToSignIn(username: state.emailSignInAddress)
            try await flows.update(id, to: next)
            return .next(node(for: next))
        }
        switch (state.step, action) {
        case (FlowStep.emailSignIn, _):
            let address = values["email"]?.text.trimmingCharacters(in: .whitespaces) ?? ""
            let holder = try await users.find(usernameOrEmail: address)
            // Only an address the account proved signs in to it; an unproven one is like an address without an account.
            let candidate = holder?.emailVerified == true ? holder : nil
            var next = state
            next.journey = .emailSignIn(address: address, candidateID: candidate?.id)
            next.username = address
            if let refused = try await sendCode(
                id, state: next, purpose: .signIn, channel: .email, to: emailSignInDestination(address: address, candidate: candidate),
                template: .emailSignIn, resend: false, link: emailLink(flowID: id))
            {
                return refused
            }
            next.step = FlowStep.emailSignInCode
            try await flows.update(id, to: next)
            return .next(node(for: next))
        case (FlowStep.emailSignInCode, .resend):
            let candidate = try await emailSignInCandidate(of: state)
            return try await resend(
                id, state: state, purpose: .signIn, channel: .email,
                to: emailSignInDestination(address: state.emailSignInAddress ?? "", candidate: candidate), template: .emailSignIn,
                link: emailLink(flowID: id))
        case (FlowStep.emailSignInCode, _):
            let candidate = try await emailSignInCandidate(of: state)
            switch try await checkCode(id, state: state, purpose: .signIn, code: values["code"]?.text ?? "", owner: candidate) {
            case .refused(let outcome): return outcome
            case .accepted: return try await afterEmailCode(id, state: state, candidate: candidate)
            }
        default:
            throw OAuthError.invalidRequest("The node \(state.step) has no action \(action).")
        }
    }

    /// The proven address signs in to its account, or (with registration on) becomes a new account without a
    /// password; then the policy's second factor, never a code to that same address.
    private func afterEmailCode(_ id: String, state: FlowStore.LoginState, candidate: User?) async throws -> Outcome {
        var user: User
        if let candidate {
            user = candidate
        } else {
            // Only an address without an account received a code (registration on): the code proved it, and the
            // hooks at `registration` decided before the transaction.
            guard settings.registration.enabled, let address = state.emailSignInAddress else { return .gone }
            var profile = UserProfile(email: address.lowercased())
            switch passwords.registration {
            case .allow(let names): profile = names.applied(to: profile)
            case .deny(let message):
                logger.info("A hook refused a registration by email sign-in")
                return try await refuseByHook(
                    id, state: state, user: nil, methods: Self.emailSignInMethods, reason: "registration_denied", error: "access_denied",
                    description: message ?? say("flow.registration.denied").text)
            case .unavailable:
                return try await refuseByHook(
                    id, state: state, user: nil, methods: Self.emailSignInMethods, reason: "hook_unavailable", error: "temporarily_unavailable",
                    description: say("flow.registration.unavailable").text)
            }
            try await claimProvenEmail(address, clientID: state.request.clientID)
            guard
                let created = try await createAccountWithoutPassword(
                    usernameFrom: Self.usernameHint(of: address), fallback: "user", profile: profile, emailVerified: true)
            else { return .gone }
            user = created
            logger.info("Account registered by email sign-in", metadata: ["user": "\(user.id)"])
            try await audit.record(.accountCreated, user: user.id, client: state.request.clientID, details: ["by": "email_sign_in"])
        }
        if user.isLocked {
            return .retry(node(for: state, messages: [FlowMessage(level: .error, text: say(LoginMessages.locked), code: "locked")]), .locked)
        }
        logger.info("Email sign-in code accepted", metadata: ["user": "\(user.id)"])
        let account = FlowStore.ProvenAccount(userID: user.id, methods: Self.emailSignInMethods, passwordSettled: true)
        return try await asFirstFactorHooksDecided(id, state: state, user: user, account: account, proven: .email) {
            let plan = try await secondFactorPlan(for: state.request, user: user, proven: .email)
            return try await afterFirstFactor(id, state: state, user: user, account: account, plan: .some(plan))
        }
    }

    /// The username a new account made by email sign-in starts from: the address's local part.
    private static func usernameHint(of address: String) -> String { String(address.prefix { $0 != "@" }) }

    /// Asks the hooks about an email sign-in code before the transaction, like a password's: those at `first_factor`
    /// about the account the address proves, or, where the code would make a new account, those at `registration`.
    package mutating func askHooks(aboutEmailSignInIn state: FlowStore.LoginState) async throws {
        if let candidate = try await emailSignInCandidate(of: state) {
            guard !firstFactorHooks.targets.isEmpty, !candidate.isLocked else { return }
            await passwords.askFirstFactorHooks(firstFactorHooks, about: candidate, factor: "email", clientID: state.request.clientID, address: source.text)
        } else if settings.registration.enabled, !registrationHooks.targets.isEmpty, let address = state.emailSignInAddress {
            passwords.registration = await registrationHooks.decide(
                username: Self.usernameCharacters(Self.usernameHint(of: address)), profile: UserProfile(email: address.lowercased()),
                clientID: state.request.clientID, address: source.text)
        }
    }

    /// The account the flow's address proved, read again (it may have changed since the address was typed).
    private func emailSignInCandidate(of state: FlowStore.LoginState) async throws -> User? {
        guard let id = state.candidateID else { return nil }
        return try await users.find(id: id)
    }

    /// The `amr` of a sign-in by email code: a one-time code, sent by email (one factor).
    package static let emailSignInMethods = ["otp", "email"]

    /// Where the code goes: the account's verified address; or, with registration on, an address no account proved.
    private func emailSignInDestination(address: String, candidate: User?) -> String? {
        if let candidate { return candidate.email }
        guard settings.registration.enabled, address.contains("@") else { return nil }
        return address
    }

    /// The message's link for the flow `flowID`, given its code.
    private func emailLink(flowID: String) -> @Sendable (String) -> String {
        { [settings] code in settings.url("\(Self.emailLinkPath)?flow=\(flowID)&code=\(code)") }
    }
}

extension FlowStore.LoginState {
    /// The address an email sign-in is for, as typed.
    package var emailSignInAddress: String? {
        if case .emailSignIn(let address, _) = journey, !address.isEmpty { address } else { nil }
    }
}
