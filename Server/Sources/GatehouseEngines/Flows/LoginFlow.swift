import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol
import Logging

/// The login flow: its nodes, and what each submission leads to. One definition serves both renderings,
/// JSON for apps (``FlowController``) and HTML for browsers (``LoginController``); the steps come
/// from configuration (``LoginSteps``, ``SignOnPolicy``). The second-factor steps are in `LoginFlow+SecondFactor.swift`.
package struct LoginFlow: Sendable {
    package let flows: FlowStore
    package let users: UserStore
    package let authenticators: AuthenticatorStore
    package let passkeys: PasskeyStore
    package let federatedIdentities: FederatedIdentityStore
    /// Which clients are third-party, and what people allowed them.
    package let clients: ClientStore
    /// The resources a request names, whose scopes the consent node describes in their own words.
    package let resources: ResourceStore
    package let consents: ConsentStore
    package let appLogins: AppLoginStore
    /// Authenticator apps' identities, for pushes to them.
    package let deviceIdentities: DeviceIdentityStore
    /// Sends sign-in pushes to authenticator apps.
    package let pushes: PushNotifier
    package let oneTimeCodes: OneTimeCodeStore
    package let audit: AuditLog
    /// Checks passwords, with the per-account and per-source limits.
    package let authenticator: PasswordAuthenticator
    /// Hashes the passwords a flow sets.
    package let hasher: PasswordHasher
    package let codeGuesses: CodeGuesses
    package let courier: Courier
    package let deviceCookies: DeviceCookie
    /// Other identity providers' endpoints and keys, cached.
    package let upstreams: UpstreamDirectory
    /// Seals the tokens of providers configured to keep them.
    package let federatedTokens: SecretBox
    /// Where a submission's transaction runs (the stores' transactions join it).
    package let database: any Database
    package let clock: UnixClock
    package let logger: Logger
    package let settings: FlowSettings
    /// The operator's hooks asked once a password proved the account.
    package let firstFactorHooks: FirstFactorHooks
    /// The operator's hooks asked before an account is created.
    package let registrationHooks: RegistrationHooks
    /// The language the person is spoken to in: every node's texts and messages.
    package var wording = Wording.english
    /// Where the submission comes from: guesses are counted per client address too.
    package var source = ClientAddress.unknown
    /// The browser's device cookie or the app's device tokens this server signed: their accounts' owners pass the
    /// accounts' password and code delays.
    package var devices: [DeviceCookie.Claim] = []
    /// The submitting browser's or app's `User-Agent`, shown to whoever approves a QR sign-in it starts.
    package var userAgent: String?
    /// The submission's password work, done before its transaction (``preparePasswords(for:action:values:)``).
    package var passwords = PreparedPasswords.none
    /// Another identity provider's answer, redeemed before the transaction (``prepareUpstream(for:values:)``).
    package var upstream: UpstreamAnswer?

    package init(
        flows: FlowStore, users: UserStore, authenticators: AuthenticatorStore, passkeys: PasskeyStore, federatedIdentities: FederatedIdentityStore,
        clients: ClientStore, resources: ResourceStore, consents: ConsentStore, appLogins: AppLoginStore, deviceIdentities: DeviceIdentityStore,
        pushes: PushNotifier, oneTimeCodes: OneTimeCodeStore, audit: AuditLog,
        authenticator: PasswordAuthenticator, hasher: PasswordHasher,
        codeGuesses: CodeGuesses, courier: Courier, deviceCookies: DeviceCookie, upstreams: UpstreamDirectory, federatedTokens: SecretBox,
        database: any Database, clock: UnixClock, logger: Logger, settings: FlowSettings, firstFactorHooks: FirstFactorHooks = .none,
        registrationHooks: RegistrationHooks = .none
    ) {
        self.flows = flows
        self.users = users
        self.authenticators = authenticators
        self.passkeys = passkeys
        self.federatedIdentities = federatedIdentities
        self.clients = clients
        self.resources = resources
        self.consents = consents
        self.appLogins = appLogins
        self.deviceIdentities = deviceIdentities
        self.pushes = pushes
        self.oneTimeCodes = oneTimeCodes
        self.audit = audit
        self.authenticator = authenticator
        self.hasher = hasher
        self.codeGuesses = codeGuesses
        self.courier = courier
        self.deviceCookies = deviceCookies
        self.upstreams = upstreams
        self.federatedTokens = federatedTokens
        self.database = database
        self.clock = clock
        self.logger = logger
        self.settings = settings
        self.firstFactorHooks = firstFactorHooks
        self.registrationHooks = registrationHooks
    }

    /// This flow, for a submission from `source`, with the devices it presented and its `User-Agent`.
    package func submitted(from source: ClientAddress, devices: [DeviceCookie.Claim] = [], userAgent: String? = nil) -> LoginFlow {
        var flow = self
        flow.source = source
        flow.devices = devices
        flow.userAgent = userAgent
        return flow
    }

    /// This flow, speaking `wording`'s language.
    package func speaking(_ wording: Wording) -> LoginFlow {
        var flow = self
        flow.wording = wording
        return flow
    }

    /// The language the person who proved to be signing in chose, if any. Only a proven account's: a name merely
    /// typed must not change the page, or the page would tell which names are accounts.
    package func preferredLocale(of state: FlowStore.LoginState) async throws -> String? {
        guard let userID = state.account?.userID else { return nil }
        return try await users.find(id: userID)?.locale
    }

    /// A message, in the flow's language, for every field of `node` whose value breaks a rule: the checks the SDK runs
    /// too (``FlowField/fieldProblem(with:)``), worded here.
    func problems(of node: FlowNode, in values: [String: FieldValue]) -> [FlowMessage] {
        node.fields.compactMap { field in
            field.fieldProblem(with: values[field.key]).map { problem in
                let label = ["label": field.label]
                let text: Phrase =
                    switch problem {
                    case .required: say("field.required", label)
                    case .invalid:
                        field.validation?.message.map { Phrase(id: field.validation?.messageID ?? "field.invalid", text: $0, arguments: [:]) }
                            ?? say("field.invalid", label)
                    case .chooseOne: say("field.choose_one", label)
                    case .chooseFromOptions: say("field.choose_from_options", label)
                    case .controlCharacters: say("field.control_characters", label)
                    }
                return FlowMessage(level: .error, text: text, field: field.key, code: "invalid_value")
            }
        }
    }

    /// The catalog message `key` in the flow's language, with `arguments` put in.
    package func say(_ key: String, _ arguments: [String: String] = [:]) -> Phrase { wording(key, arguments) }

    package var usernameField: FlowField {
        FlowField(
            key: "username", kind: .text, label: say("flow.field.username.label"),
            validation: FieldValidation(maxLength: 256, message: say("flow.field.username.missing")), autocomplete: "username")
    }

    package var passwordField: FlowField {
        FlowField(
            key: "password", kind: .password, label: say("flow.field.password.label"),
            validation: FieldValidation(maxLength: 1024, message: say("flow.field.password.too_long")), autocomplete: "current-password")
    }

    /// Starts a flow of `kind` for a validated authorization request; returns its id and first node.
    package func begin(
        _ request: AuthorizationRequest, kind: FlowKind = .login, clientName: String, owner: FlowStore.Owner
    ) async throws -> (id: String, node: FlowNode) {
        if kind == .registration, !settings.registration.enabled {
            throw OAuthError.invalidRequest("Registration is not enabled on this server.")
        }
        let first =
            switch kind {
            case .login, .enrollment: settings.loginSteps == .identifyFirst ? FlowStep.identify : FlowStep.credentials
            case .registration: FlowStep.register
            case .recovery: FlowStep.recoveryIdentify
            }
        var state = FlowStore.LoginState(
            request: request, step: first, journey: Journey(kind), username: request.loginHint,
            clientName: settings.branding.name(of: request.clientID, registered: clientName))
        if kind == .login { startPasskeySignIn(&state) }
        if settings.identityProviders.contains(where: \.native) { state.federation.nativeNonce = SecureRandom.token() }
        let id = try await flows.create(state, owner: owner, lifetime: settings.lifetime)
        state.id = id
        return (id, node(for: state))
    }

    /// The node `state` is at, with `messages`: one exhaustive switch, so a new step cannot be left without a node.
    package func node(for state: FlowStore.LoginState, messages: [FlowMessage] = []) -> FlowNode {
        var node =
            switch state.step.family {
            case .signIn(let step): signInNode(step, for: state, messages: messages)
            case .emailSignIn(let step): emailSignInNode(step, for: state, messages: messages)
            case .secondFactor(let step): secondFactorNode(step, for: state, messages: messages)
            case .passkey(let step): passkeyNode(step, for: state, messages: messages)
            case .factorEnrollment(let step): factorEnrollmentNode(step, for: state, messages: messages)
            case .registration(let step): registrationNode(step, for: state, messages: messages)
            case .recovery(let step): recoveryNode(step, for: state, messages: messages)
            case .password(let step): passwordNode(step, for: state, messages: messages)
            case .linking(let step): federationNode(step, for: state, messages: messages)
            case .enrollmentChoice: enrollmentNode(for: state, messages: messages)
            // Without a pending code (a flow stored by an older version), the app's node is the sign-in it came from.
            case .appLogin: appLoginNode(for: state, messages: messages) ?? signInNode(.credentials, for: state, messages: messages)
            case .consent: consentNode(for: state, messages: messages)
            case .push: pushNode(for: state, messages: messages)
            case .pushSignIn: pushSignInNode(for: state, messages: messages)
            }
        node.codeSource = Self.codeSource(for: state)
        // What the OpenAPI document promises per step (`FlowStep.actions`); the debug builds the tests run check it.
        Invariant.check(node.step.map { step in node.actions.allSatisfy { step.offers($0.id) } } == true, "\(node.id) offers an action its step does not list")
        return node
    }

    /// Where the code the node of `state` asks for comes from (or, setting up a phone or an address, the code about to
    /// be sent), so that apps need not infer it from the step's id.
    static func codeSource(for state: FlowStore.LoginState) -> CodeSource? {
        switch state.step {
        case .totp, .enrollTOTP: .totp
        case .recoveryCode: .recoveryCode
        case .emailCode, .verifyEmail, .enrollEmailCode, .unlockCode, .emailSignInCode, .linkCode: .email
        case .smsCode, .verifyPhone: .sms
        case .voiceCode: .voice
        case .enrollPhone, .enrollPhoneCode: state.secondFactor.enrolling?.channel.codeSource ?? .sms
        case .enrollEmail: .email
        case .resetCode: state.recoveryChannel?.codeSource ?? .email
        case .credentials, .identify, .password, .emailSignIn, .linkAccount, .chooseFactor, .passkey, .enrollOffer, .enrollPasskey,
            .enrollMethod, .recoveryCodes, .register, .recoveryIdentify, .recoveryChoose, .recoveryPassword,
            .passwordWarning, .passwordExpired, .enrollChoose, .appLogin, .consent, .push, .pushSignIn:
            nil
        }
    }

    /// The sign-in node: username and password together, or one after the other.
    private func signInNode(_ step: StepFamily.SignIn, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        var usernameField = self.usernameField
        usernameField.defaultValue = state.username
        // Locked out after too many failures: the same node, with a way out by email code.
        let locked = state.lockedOut
        let category: FlowCategory = locked ? .lockedOut : .signIn
        let unlock = locked ? [FlowAction(id: .unlock, kind: .submit, label: say("flow.sign_in.unlock"))] : []
        var links = [FlowAction(id: .recover, kind: .link, label: say("flow.sign_in.forgot_password"), flow: FlowKind.recovery.rawValue)]
        if case .signIn = state.journey, settings.signOnPolicy(for: state.request.clientID).pushSignIn {
            links.insert(pushSignInAction, at: 0)
        }
        if case .signIn = state.journey, settings.signOnPolicy(for: state.request.clientID).appLogin {
            links.insert(appLoginAction, at: 0)
        }
        if settings.registration.enabled {
            links.append(FlowAction(id: .register, kind: .link, label: say("flow.sign_in.register"), flow: FlowKind.registration.rawValue))
        }
        // A passkey may sign in instead: a button, and the browser's saved passkeys offered in the username field.
        let passkey = state.secondFactor.passkey.map { ceremony in
            FlowField(key: Self.credentialKey, kind: .passkeyGet, label: say("flow.sign_in.passkey_field"), required: false, defaultValue: ceremony.options)
        }
        if passkey != nil { usernameField.autocomplete = "username webauthn" }
        // Offered where the passkey field is: the first node (not the password node of identify-first).
        let passkeyAction =
            passkey == nil || locked || step == .password ? [] : [FlowAction(id: .passkey, kind: .submit, label: say("flow.sign_in.passkey"))]
        let providers = identityProviderActions(for: state)
        let email = emailSignInAction(for: state)
        let submit = { (label: Phrase) in [FlowAction(id: .submit, kind: .submit, label: label)] + passkeyAction + email + unlock + providers + links }
        switch step {
        case .identify:
            return FlowNode(
                id: FlowStep.identify.rawValue, name: say("flow.sign_in.name"), description: say("flow.identify.description", ["client": clientName]),
                category: .signIn, fields: [usernameField] + (passkey.map { [$0] } ?? []), actions: submit(say("flow.identify.next")), messages: messages)
        case .password:
            return FlowNode(
                id: FlowStep.password.rawValue, name: say("flow.password.name"),
                description: say("flow.password.description", ["username": state.username ?? "", "client": clientName]),
                category: category, fields: [passwordField], actions: submit(say("flow.sign_in.submit")), messages: messages)
        case .credentials:
            let purpose =
                if case .enrollment = state.journey { say("flow.credentials.description.enrollment") } else {
                    say("flow.credentials.description.default", ["client": clientName])
                }
            return FlowNode(
                id: FlowStep.credentials.rawValue, name: say("flow.sign_in.name"), description: purpose, category: category,
                fields: [usernameField, passwordField] + (passkey.map { [$0] } ?? []), actions: submit(say("flow.sign_in.submit")), messages: messages)
        }
    }

    /// Why a node is shown again; the hosted page answers each with its own HTTP status.
    package enum Problem: Sendable, Equatable {
        case invalidInput, invalidCredentials, invalidCode, throttled, locked
        /// Another identity provider could not be reached.
        case upstreamUnavailable
        /// Waiting for the authenticator app to approve (not an error: the page keeps showing the code).
        case waiting
        /// The app cancelled, or the code expired before anyone approved it.
        case notApproved
    }

    /// Where a submission led.
    package enum Outcome: Sendable {
        /// The next node.
        case next(FlowNode)
        /// The same node again, with messages saying what to fix.
        case retry(FlowNode, Problem)
        /// Signed in: the flow is finished and can never be submitted again.
        case authenticated(User, FlowStore.LoginState)
        /// The flow expired, or another submission finished it first.
        case gone
        /// Another submission of the same step moved the flow on first; this one changed nothing. Show the flow
        /// where it is now.
        case superseded
        /// The flow cannot go on (too many wrong codes) and has ended; the user starts again.
        case failed(String)
        /// The flow has ended without a sign-in the application may have: its client hears `error` (an OAuth or
        /// OpenID Connect error code such as `unmet_authentication_requirements`).
        case refused(error: String, description: String)
    }

    /// OpenID Connect's error for a sign-in that cannot meet the requested `acr_values`.
    package static let unmetRequirements = "unmet_authentication_requirements"

    /// Whether a sign-in with `methods` leaves `request`'s `acr_values` unmet: it asks for the multi-factor `acr` only
    /// (not the password one too, which any sign-in meets), and `methods` has no second factor.
    package static func leavesUnmet(_ request: AuthorizationRequest, methods: [String]) -> Bool {
        guard let requested = request.acrValues, requested.contains(multiFactorACR), !requested.contains(passwordACR) else { return false }
        return !methods.contains("mfa")
    }

    /// Where a submission led, and what the caller did in the same transaction when it signed someone in.
    package struct Submitted<SignedIn: Sendable>: Sendable {
        package var outcome: Outcome
        /// `signedIn`'s result, when the outcome is ``Outcome/authenticated(_:_:)``.
        package var signedIn: SignedIn?
    }

    /// Applies a submission of `values` with `action` to the flow `id`, which is at `state`, in one database
    /// transaction: the step's reads, its guesses and code checks, the flow written back over the version it was
    /// read at, the finish, and `signedIn` (the caller's authorization code or session) commit together or not
    /// at all. A submission another one beat to the flow changes nothing and is ``Outcome/superseded``. Password
    /// hashes are computed before the transaction (``PreparedPasswords``).
    package func submit<SignedIn: Sendable>(
        _ id: String, state: FlowStore.LoginState, action: String, values: [String: FieldValue],
        signedIn: @escaping @Sendable (User, FlowStore.LoginState) async throws -> SignedIn
    ) async throws -> Submitted<SignedIn> {
        let current = node(for: state)
        // A provider's answer may come back to whichever node the flow is at.
        // The node offers only actions of known ids besides its identity providers, which are links, not submissions.
        let isCallback = action == FlowActionID.identityProviderCallback.rawValue
        // Unlocking is offered once the name is blocked, and taken before then for a flow that names the account (an
        // app's "Unlock your account" after the sign-in failed with `throttled` in another flow): the same code by
        // email, answered the same way whether or not the name is an account.
        let isUnlock = action == FlowActionID.unlock.rawValue && state.step.actions.contains(.unlock) && state.username?.isEmpty == false
        // An app's own token from a provider is taken where the node offers that provider.
        let isAppToken = action == FlowActionID.identityProviderToken.rawValue && current.actions.contains { $0.kind == .idp && $0.nonce != nil }
        guard let action = FlowActionID(rawValue: action),
            isCallback || isUnlock || isAppToken || current.actions.contains(where: { $0.id == action.rawValue && $0.kind != .idp })
        else {
            throw OAuthError.invalidRequest("The node \(current.id) has no action \(action).")
        }
        let problems = action.rawValue == current.primaryAction?.id ? problems(of: current, in: values) : []
        guard problems.isEmpty else {
            var retried = state
            if [FlowStep.identify, FlowStep.credentials].contains(state.step) { retried.username = values["username"]?.text }
            return Submitted(outcome: .retry(node(for: retried, messages: problems), .invalidInput))
        }
        var flow = self
        flow.passwords = try await preparePasswords(for: state, action: action, values: values)
        if isCallback { flow.upstream = await prepareUpstream(for: state, values: values) }
        if isAppToken { flow.upstream = await prepareAppToken(for: state, offered: current.actions, values: values) }
        if case .profile(let profile) = flow.upstream { try await flow.askFirstFactorHooks(about: profile, for: state) }
        if action == .passkey, [.credentials, .identify, .password].contains(state.step) {
            await flow.askFirstFactorHooks(aboutPasskeyIn: values, for: state)
        }
        if [.appLogin, .pushSignIn].contains(state.step), ![.newCode, .password, .resend].contains(action) {
            try await flow.askFirstFactorHooks(aboutApprovalIn: id, state: state)
        }
        // Every other way in passes the same hooks: a recovery code, an email sign-in code.
        if action == .submit, state.step == .resetCode { try await flow.askFirstFactorHooks(aboutRecoveryIn: state) }
        if action == .submit, state.step == .emailSignInCode { try await flow.askHooks(aboutEmailSignInIn: state) }
        do {
            return try await database.transaction { [flow] _ in
                let outcome = try await flow.dispatch(id, state: state, action: action, values: values)
                guard case .authenticated(let user, let finished) = outcome else { return Submitted(outcome: outcome) }
                return Submitted(outcome: outcome, signedIn: try await signedIn(user, finished))
            }
        } catch is FlowStore.Superseded {
            return Submitted(outcome: .superseded)
        }
    }

    /// Applies a submission like ``submit(_:state:action:values:signedIn:)``, for a caller with nothing to add to a sign-in.
    package func advance(_ id: String, state: FlowStore.LoginState, action: String, values: [String: FieldValue]) async throws -> Outcome {
        try await submit(id, state: state, action: action, values: values) { _, _ in }.outcome
    }

    /// Hands a submission to the handler of its step: one exhaustive switch, so a new step is a new case here.
    private func dispatch(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        if action == .identityProviderCallback { return try await advanceUpstream(id, state: state) }
        if action == .identityProviderToken {
            var named = state
            if let provider = settings.identityProvider(values["provider"]?.text ?? "") { named.federation.lastProviderID = provider.id }
            return try await advanceUpstream(id, state: named, renewingNonce: true)
        }
        switch state.step {
        case .credentials, .identify, .password:
            return try await advanceSignIn(id, state: state, action: action, values: values)
        case .emailSignIn, .emailSignInCode:
            return try await advanceEmailSignIn(id, state: state, action: action, values: values)
        case .chooseFactor, .totp, .recoveryCode, .enrollOffer, .enrollTOTP, .recoveryCodes, .emailCode, .smsCode, .voiceCode, .enrollMethod, .enrollPhone,
            .enrollPhoneCode, .enrollEmail, .enrollEmailCode, .passkey, .enrollPasskey, .push:
            return try await advanceSecondFactor(id, state: state, action: action, values: values)
        case .register, .verifyEmail, .verifyPhone:
            return try await advanceRegistration(id, state: state, action: action, values: values)
        case .recoveryIdentify, .recoveryChoose, .resetCode, .unlockCode:
            return try await advanceRecovery(id, state: state, action: action, values: values)
        case .recoveryPassword, .passwordWarning, .passwordExpired:
            return try await advancePassword(id, state: state, action: action, values: values)
        case .enrollChoose:
            return try await advanceEnrollment(id, state: state, values: values)
        case .appLogin:
            return try await advanceAppLogin(id, state: state, action: action)
        case .pushSignIn:
            return try await advancePushSignIn(id, state: state, action: action)
        case .linkAccount, .linkCode:
            return try await advanceLinking(id, state: state, action: action, values: values)
        case .consent:
            return try await advanceConsent(id, state: state, action: action)
        }
    }

    /// A submission on the sign-in node: the password, or one of its links (recovery, registration, unlocking, the app).
    private func advanceSignIn(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        if let outcome = try await switchJourney(id, state: state, action: action, values: values) { return outcome }
        if action == .passkey { return try await signInWithPasskey(id, state: state, values: values) }
        if action == .emailCode { return try await startEmailSignIn(id, state: state, typed: values["username"]?.text) }
        if state.step == FlowStep.identify {
            // Always go on to the password, whether the account exists or not: no enumeration.
            var next = state
            next.step = FlowStep.password
            next.username = values["username"]?.text
            try await flows.update(id, to: next)
            return .next(node(for: next))
        }
        var attempt = state
        if state.step != FlowStep.password { attempt.username = values["username"]?.text ?? "" }
        func again(_ text: Phrase, _ problem: Problem, code: String) -> Outcome {
            .retry(node(for: attempt, messages: [FlowMessage(level: .error, text: text, code: code)]), problem)
        }
        guard let checked = passwords.signIn else { throw FlowEngineError.passwordNotPrepared }
        switch checked {
        case .invalidCredentials: return again(say(LoginMessages.invalidCredentials), .invalidCredentials, code: "invalid_credentials")
        case .throttled:
            attempt.lockedOut = true
            try await flows.update(id, to: attempt)
            return again(say(LoginMessages.throttled), .throttled, code: "throttled")
        case .locked: return again(say(LoginMessages.locked), .locked, code: "locked")
        case .authenticated(let user):
            return try await afterCheckedPassword(id, state: attempt, user: user)
        }
    }

    /// A password proved `user` (on the sign-in node, or to link another provider's identity): on as the hooks at
    /// `first_factor` decided before the transaction.
    package func afterCheckedPassword(_ id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        try await asFirstFactorHooksDecided(id, state: state, user: user, account: FlowStore.ProvenAccount(userID: user.id, methods: ["pwd"])) {
            try await afterPassword(id, state: state, user: user)
        }
    }

    /// A first factor proved `user` (`account`, with its methods): on with `allowed` when the hooks at `first_factor`
    /// allowed it before the transaction (or were not asked about this account: it was made in this step); to a second
    /// factor whatever the policy says when they require one (never the one the first factor already `proven`);
    /// refused when they refuse or failed with `deny`.
    package func asFirstFactorHooksDecided(
        _ id: String, state: FlowStore.LoginState, user: User, account: FlowStore.ProvenAccount, proven: SecondFactor? = nil,
        allowed: () async throws -> Outcome
    ) async throws -> Outcome {
        guard passwords.firstFactorAccount == user.id else { return try await allowed() }
        switch passwords.firstFactor {
        case .allow: return try await allowed()
        case .requireSecondFactor:
            let plan = try await secondFactorPlan(for: state.request, user: user, stepUp: true, proven: proven)
            return try await afterFirstFactor(id, state: state, user: user, account: account, plan: .some(plan))
        case .deny(let message):
            return try await refuseByHook(
                id, state: state, user: user, account: account, reason: "hook_denied", error: "access_denied", description: message)
        case .unavailable:
            return try await refuseByHook(
                id, state: state, user: user, account: account, reason: "hook_unavailable", error: "temporarily_unavailable",
                description: say("flow.error.hook_unavailable").text)
        }
    }

    /// Ends the flow refused, as the hooks at `first_factor` decided, with the failure in the audit trail.
    private func refuseByHook(
        _ id: String, state: FlowStore.LoginState, user: User, account: FlowStore.ProvenAccount, reason: String, error: String, description: String?
    ) async throws -> Outcome {
        try await refuseByHook(id, state: state, user: user, methods: account.methods, reason: reason, error: error, description: description)
    }

    /// Ends the flow refused, as a hook decided about `user` (none yet: an account the hooks at `registration` kept
    /// from being made) who proved `methods`, with the failure in the audit trail.
    package func refuseByHook(
        _ id: String, state: FlowStore.LoginState, user: User?, methods: [String], reason: String, error: String, description: String?
    ) async throws -> Outcome {
        guard try await flows.finish(id, at: state.version) else { throw FlowStore.Superseded() }
        try await audit.record(
            .signInFailed, user: user?.id, client: state.request.clientID, details: ["reason": reason, "methods": methods.joined(separator: " ")])
        return .refused(error: error, description: description ?? say("flow.error.not_allowed").text)
    }

    /// Ends the flow for `user` (only one submission can), unless a password must be set first: a recovery's
    /// new password, or a change because the password expired (or will soon, which the user may skip).
    package func complete(_ id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        if state.account?.passwordSettled != true, let next = passwordStep(for: state, user: user) {
            var changed = state
            changed.step = next
            try await flows.update(id, to: changed)
            return .next(node(for: changed))
        }
        if case .enrollment(done: false) = state.journey {
            return try await beginEnrollment(id, state: state, user: user)
        }
        if Self.leavesUnmet(state.request, methods: state.methods) {
            // Asked for a second factor (acr_values) and signed in without one on a path that had none to give: refused,
            // never handed over as the weaker sign-in.
            guard try await flows.finish(id, at: state.version) else { throw FlowStore.Superseded() }
            try await audit.record(
                .signInFailed, user: user.id, client: state.request.clientID,
                details: ["reason": Self.unmetRequirements, "methods": state.methods.joined(separator: " ")])
            return .refused(
                error: Self.unmetRequirements, description: say("flow.error.unmet_requirements").text)
        }
        // A third-party client gets nothing the person has not allowed it (after every other step: not asked for a
        // sign-in that cannot finish). A device's sign-in asks on the device's confirmation instead.
        if state.request.deviceAuthorizationID == nil, state.consent?.allowed != true,
            let asking = try await consentToAsk(for: state.request, userID: user.id)
        {
            var consenting = state
            consenting.step = .consent
            consenting.consent = asking
            try await flows.update(id, to: consenting)
            return .next(node(for: consenting))
        }
        guard try await flows.finish(id, at: state.version) else { throw FlowStore.Superseded() }
        let finished = try await linkWaitingIdentity(state)
        // A new account or a reset password also ends a lock-out from earlier failures.
        if state.journey.endsLockout { try await authenticator.forgetFailures(of: user.username) }
        // Only asked for consent, on a browser session: no new sign-in to record.
        if state.consent?.sessionAuthTime == nil {
            try await audit.record(
                .signInSucceeded, user: user.id, client: state.request.clientID,
                details: ["methods": finished.methods.joined(separator: " "), "journey": finished.journey.name])
        }
        return .authenticated(user, finished)
    }
}

/// The catalog keys of the words the sign-in steps share with the other parts that speak to a person (the app's API,
/// the hosted pages, the account page).
package enum LoginMessages {
    package static let invalidCredentials = "flow.error.invalid_credentials"
    package static let throttled = "flow.error.throttled"
    /// Takes `minutes`.
    package static let guessesBlocked = "flow.error.guesses_blocked"
    package static let locked = "flow.error.locked"
    package static let invalidCode = "flow.error.invalid_code"
    package static let replayedCode = "flow.error.replayed_code"
    package static let tooManyCodes = "flow.error.too_many_codes"
    package static let expiredCode = "flow.error.expired_code"
    package static let expired = "flow.error.expired"
    package static let superseded = "flow.error.superseded"
    package static let hostedExpired = "flow.error.hosted_expired"

    /// `key`'s message in English, for the parts that do not yet know the person's language.
    package static func english(_ key: String, _ arguments: [String: String] = [:]) -> String { Wording.english(key, arguments).text }
}
