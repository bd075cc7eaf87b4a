import Foundation
import GatehouseProtocol

/// Signs in, registers, resets a password or changes two-step verification through whatever steps the server's policy asks for, asking the
/// app only for what a person must decide or type: which factor or delivery method, which code, a phone number or
/// email address to set up, a new password, and to save recovery codes.
///
/// ```swift
/// let login = MultifactorLogin(client: gatehouse) { step in
///     switch step {
///     case .chooseFactor(let factors): return .choose(factors.contains(.totp) ? .totp : factors[0])
///     case .chooseEnrollment(let factors, let optional): return optional ? .skip : .choose(factors[0])
///     case .chooseMethod(let methods): return .choose(methods[0])
///     case .enterPhoneNumber(_, let problem): return .phoneNumber(await askForNumber(problem))
///     case .enterEmailAddress(let suggested, let problem): return .emailAddress(await askForAddress(suggested, problem))
///     case .enrollTOTP(let uri, _): showQRCode(uri); return .code(await askForCode())
///     case .verifyCode(let factor, let problem): return .code(await askForCode(factor, problem))
///     case .newPassword(let reason, let problem): return .password(await askForNewPassword(reason, problem))
///     case .saveRecoveryCodes(let codes): show(codes); return .done
///     case .consent(let consent): return await askToAllow(consent) ? .allow : .deny
///     case .createPasskey(let optional): return await askToCreatePasskey(optional) ? .allow : .skip
///     case .approveOnDevice(let number, _): await showNumberAndWait(number); return .done
///     }
/// }
/// let user = try await login.login(username: "ada", password: password)
/// ```
public struct MultifactorLogin: Sendable {
    /// What the flow needs from the person.
    public enum Step: Sendable, Equatable {
        /// Pick one of the second factors the account can use.
        case chooseFactor([SecondFactorKind])
        /// Pick a second factor to set up now (``SecondFactorKind/totp``, ``SecondFactorKind/phone`` or
        /// ``SecondFactorKind/email``). When `optional` (the server offers it, the policy does not require it),
        /// ``Answer/skip`` answers "Not now" and the server waits a while before offering again.
        case chooseEnrollment(factors: [SecondFactorKind], optional: Bool)
        /// Pick how a code is delivered: ``SecondFactorKind/email``, ``SecondFactorKind/sms`` or (where the policy takes
        /// codes by call) ``SecondFactorKind/voice`` for a reset; ``SecondFactorKind/sms`` or ``SecondFactorKind/voice``
        /// for a phone number being set up.
        case chooseMethod([SecondFactorKind])
        /// Enter the phone number to set up, with its country code; its codes come by `method`
        /// (``SecondFactorKind/sms`` or ``SecondFactorKind/voice``). `PhoneNumber` reads it as the server will;
        /// `problem` says why the last one was refused.
        case enterPhoneNumber(method: SecondFactorKind, problem: String?)
        /// Enter the email address to get codes at; `suggested` is the account's current one. `problem` says why
        /// the last one was refused (not an address, or another account has it).
        case enterEmailAddress(suggested: String?, problem: String?)
        /// Add the account to an authenticator app (from the `otpauth://` URI, as a QR code, or the Base32
        /// `key` typed by hand), then answer with the code it shows.
        case enrollTOTP(uri: String, key: String?)
        /// Enter the code of `factor` (from an app, sent by email or text message, read out in a call, or a saved
        /// recovery code), as the node names it; `problem` says why the last one was refused.
        case verifyCode(factor: SecondFactorKind, problem: String?)
        /// Choose a new password; `problem` says why the last one was refused.
        case newPassword(reason: PasswordChangeReason, problem: String?)
        /// Show the recovery codes once so the person can save them.
        case saveRecoveryCodes([String])
        /// A third-party application asks the person to allow it the scopes named (with their descriptions); answer
        /// ``Answer/allow`` or ``Answer/deny``. Any other answer denies: the helper never allows on its own.
        case consent(FlowConsent)
        /// The server asks to create a passkey for the account (set up as a second factor, or offered after
        /// registration). Answer ``Answer/allow`` and the ``MultifactorLogin/passkeys`` provider shows the system's
        /// sheet; ``Answer/skip`` answers "Not now" where `optional`; ``Answer/chooseAnother`` goes back to the other
        /// factors where the server offers them. Not asked when the person already chose a passkey
        /// (``Step/chooseEnrollment(factors:optional:)``, ``EnrollmentChange/passkey``), nor without a provider: then
        /// "Not now" is answered where offered.
        case createPasskey(optional: Bool)
        /// The server sent a push to the account's authenticator app: show `number`, which the person picks there
        /// before entering the PIN. Answer ``Answer/done`` once they approved (the helper checks; while the approval
        /// has not arrived, this is asked again with `problem` saying so), ``Answer/resend`` for a new push (a new
        /// number), or ``Answer/chooseAnother`` for another factor.
        case approveOnDevice(number: Int, problem: String?)
    }

    /// Why a new password is asked for.
    public enum PasswordChangeReason: Sendable, Equatable {
        /// The password expired (or an administrator asked for a new one): it must change.
        case expired
        /// It expires soon: answer ``Answer/skip`` to keep it for now.
        case expiringSoon
        /// A forgotten password is being reset.
        case reset
    }

    /// The app's answer to a ``Step``.
    public enum Answer: Sendable, Equatable {
        /// The factor chosen on ``Step/chooseFactor(_:)``.
        case choose(SecondFactorKind)
        /// The code typed on a code step.
        case code(String)
        /// The new password typed on a password step.
        case password(String)
        /// The number typed on ``Step/enterPhoneNumber(method:problem:)``.
        case phoneNumber(String)
        /// The address typed on ``Step/enterEmailAddress(suggested:problem:)``.
        case emailAddress(String)
        /// Go back and choose another factor or method (on ``Step/verifyCode(factor:problem:)``); while a phone number
        /// or email address is being set up, enter a different one.
        case chooseAnother
        /// Send a new code (on ``Step/verifyCode(factor:problem:)`` for a delivered code).
        case resend
        /// Get the code the other way: a call instead of a text message, or the other way round (on
        /// ``Step/verifyCode(factor:problem:)`` for ``SecondFactorKind/sms`` or ``SecondFactorKind/voice``, when the
        /// policy allows both). The resend delay applies.
        case useOtherMethod
        /// Skip an optional step: a password that only expires soon, confirming a phone number at registration, or
        /// setting up a second factor when it is only offered (``Step/chooseEnrollment(factors:optional:)``).
        case skip
        /// Acknowledge (on ``Step/saveRecoveryCodes(_:)``).
        case done
        /// Allow the application what it asks for (on ``Step/consent(_:)``), or a passkey to be created (on
        /// ``Step/createPasskey(optional:)``).
        case allow
        /// Refuse it (on ``Step/consent(_:)``): the flow ends, failing with `access_denied`.
        case deny
    }

    /// The app's part: shows a ``Step`` and returns what the user answered.
    public typealias StepHandler = @Sendable (Step) async throws -> Answer

    /// The profile a new account is registered with.
    public struct Profile: Sendable, Equatable {
        /// The first name.
        public var givenName: String
        /// The last name.
        public var familyName: String
        /// The email address; a code confirms it before the account exists.
        public var email: String
        /// E.164, e.g. `+14155550100`; only sent when the server asks for a phone number.
        public var phoneNumber: String?

        /// A profile for ``MultifactorLogin/register(username:password:profile:)``.
        public init(givenName: String, familyName: String, email: String, phoneNumber: String? = nil) {
            self.givenName = givenName
            self.familyName = familyName
            self.email = email
            self.phoneNumber = phoneNumber
        }
    }

    /// The provider's client the flows run on.
    public let client: GatehouseClient
    /// Makes and uses passkeys when a step asks for one; without it, passkeys are left out of the choices.
    public let passkeys: (any PasskeyProvider)?
    let stepHandler: StepHandler

    /// Runs flows on `client`, asking `stepHandler` whenever the user has to answer something, and `passkeys` (the
    /// platform's passkey sheet, through ``PlatformPasskeyProvider`` on Apple platforms) when a step needs a passkey.
    public init(client: GatehouseClient, passkeys: (any PasskeyProvider)? = nil, stepHandler: @escaping StepHandler) {
        self.client = client
        self.passkeys = passkeys
        self.stepHandler = stepHandler
    }

    /// Signs in with a passkey alone, where the client's sign-on policy allows it (`passkey_sign_in`): the provider
    /// offers the person their passkeys for this site, and one that verifies the user signs in, multi-factor.
    ///
    /// - Throws: ``GatehouseError/unsupportedStep(_:)`` when there is no ``passkeys`` provider or the server does
    ///   not offer passkey sign-in here; ``GatehouseError/invalidInput(_:)`` when the server refuses the passkey;
    ///   or what the provider throws (the person cancelled, no passkey for this site).
    public func loginWithPasskey() async throws -> UserSession {
        guard let passkeys else { throw GatehouseError.unsupportedStep("a passkey sign-in needs a PasskeyProvider") }
        guard case .continue(var step) = await client.start(.login), let passkey = step.passkey,
            let action = step.submit(.passkey)
        else {
            throw GatehouseError.unsupportedStep("passkey sign-in is not offered by this client's sign-on policy")
        }
        step[passkey.key] = try await passkeys.usePasskey(optionsJSON: passkey.optionsJSON)
        return try await signIn(from: await step.next(action), values: [:])
    }

    /// Signs in without a password, where the client's sign-on policy allows it (`email_sign_in`): a code is sent to
    /// `address` (``Step/verifyCode(factor:problem:)`` with ``SecondFactorKind/email`` asks for it), then any second
    /// factor the policy asks for. The server answers every address the same way: a code only reaches an address
    /// that can sign in (or, where registration is on, one without an account yet, which the code creates).
    ///
    /// - Throws: ``GatehouseError/unsupportedStep(_:)`` when the server does not offer email sign-in here,
    ///   ``GatehouseError/invalidInput(_:)`` for an address it cannot send to, ``GatehouseError/throttled`` after
    ///   too many wrong codes, or what the step handler throws.
    public func loginWithEmail(_ address: String) async throws -> UserSession {
        let first = await client.start(.login)
        guard case .continue(let step) = first else { return try await signIn(from: first, values: [:]) }
        guard let action = step.submit(.emailCode) else {
            throw GatehouseError.unsupportedStep("email sign-in is not offered by this client's sign-on policy")
        }
        return try await signIn(from: await step.next(action), values: ["email": address])
    }

    /// Signs in without a password, where the client's sign-on policy allows it (`push_sign_in`): a notification goes
    /// to `username`'s authenticator app, and ``Step/approveOnDevice(number:problem:)`` shows the number to pick there;
    /// then any second factor the policy asks for. The server answers every name the same way: only an account whose
    /// app takes pushes gets one, the others wait until the notification expires.
    ///
    /// - Throws: ``GatehouseError/unsupportedStep(_:)`` when the server does not offer it here, or the errors of the
    ///   steps after it.
    public func loginWithPush(username: String) async throws -> UserSession {
        guard case .continue(var step) = await client.start(.login, loginHint: username), let action = step.submit(.pushSignIn) else {
            throw GatehouseError.unsupportedStep("sign-in by a notification to the phone is not offered by this client's sign-on policy")
        }
        step["username"] = username
        return try await signIn(from: await step.next(action), values: [:])
    }

    /// Signs in with a username and password, then any second factor or password change the server asks for.
    ///
    /// - Throws: ``GatehouseError/invalidCredentials``, ``GatehouseError/throttled`` (also after too many
    ///   wrong codes), ``GatehouseError/locked``, ``GatehouseError/flowExpired``, ``GatehouseError/network(_:)``,
    ///   ``GatehouseError/unsupportedStep(_:)`` for a step this helper cannot answer, or what the step handler throws.
    public func login(username: String, password: String) async throws -> UserSession {
        try await run(.login, values: ["username": username, "password": password])
    }

    /// Creates an account and signs it in: the profile and password, then the codes that confirm the email
    /// (and phone), then whatever the sign-on policy asks for.
    ///
    /// - Throws: ``GatehouseError/invalidInput(_:)`` when the server refuses a value (a taken username, a
    ///   common password: the messages say which), ``GatehouseError/throttled`` after too many wrong codes,
    ///   or the errors of ``login(username:password:)``.
    public func register(username: String, password: String, profile: Profile) async throws -> UserSession {
        var values = [
            "username": username, "new_password": password, "given_name": profile.givenName,
            "family_name": profile.familyName, "email": profile.email,
        ]
        if let phone = profile.phoneNumber { values["phone_number"] = phone }
        return try await run(.registration, values: values)
    }

    /// Resets a forgotten password and signs in: a code by the chosen method, any enrolled second factor,
    /// then the new password (``Step/newPassword(reason:problem:)`` with ``PasswordChangeReason/reset``).
    public func resetPassword(username: String) async throws -> UserSession {
        try await run(.recovery, values: ["username": username])
    }

    /// What ``enroll(username:password:change:)`` changes.
    public enum EnrollmentChange: String, Sendable, CaseIterable {
        /// Set up an authenticator app, replacing the current one (whose codes stop working once the new one is confirmed).
        case authenticatorApp = "totp"
        /// Replace the recovery codes with new ones. When no authenticator app is set up yet, one is set up instead.
        case recoveryCodes = "recovery_codes"
        /// Set up a phone number (``Step/chooseMethod(_:)``, ``Step/enterPhoneNumber(method:problem:)``, then its code),
        /// replacing the current one, which is told by text message.
        case phone
        /// Get codes at an email address (``Step/enterEmailAddress(suggested:problem:)`` unless the account's is
        /// verified, then its code).
        case email
        /// Add a passkey, made by the ``MultifactorLogin/passkeys`` provider; the account may have several.
        case passkey
    }

    /// Changes two-step verification for an account: signs in with the password and any second factor it has
    /// enrolled (asked whatever the sign-on policy), then sets up a new authenticator app
    /// (``Step/enrollTOTP(uri:key:)`` and ``Step/saveRecoveryCodes(_:)``), a phone number or an email address, or
    /// shows new recovery codes. What the client's policy does not offer fails with ``GatehouseError/unsupportedStep(_:)``.
    /// The account's owner is told by email; the session it ends with is signed in like any other.
    public func enroll(username: String, password: String, change: EnrollmentChange = .authenticatorApp) async throws -> UserSession {
        try await run(.enrollment, values: ["username": username, "password": password, Self.enrollmentChoiceKey: change.rawValue])
    }

    private static let enrollmentChoiceKey = "setup"

    /// Goes on from a node the app already holds, asking the step handler as the other helpers do: the node after
    /// signing in with another identity provider (``ContinueNode/next(signingInWith:browser:)``), which may ask for a
    /// second factor, for setting one up, or (`FlowStep.linkAccount`) for the password of the existing account to
    /// link to; or any node of a flow the app drove itself so far.
    ///
    /// - Parameters:
    ///   - node: Where the flow is: a ``Node/continue(_:)`` or ``Node/error(_:)`` goes on, a success returns its
    ///     user, a failure throws its cause.
    ///   - username: Fills a username field a step asks for, such as when linking to an existing account.
    ///   - password: Fills a password field a step asks for.
    /// - Throws: What the helpers that start a flow throw.
    public func `continue`(from node: Node, username: String? = nil, password: String? = nil) async throws -> UserSession {
        var values: [String: String] = [:]
        if let username { values["username"] = username }
        if let password { values["password"] = password }
        return try await signIn(from: node, values: values)
    }

    /// Signs in with another identity provider's own sign-in on the device (`native`: the Sign in with Apple sheet
    /// through `signInWithApple(anchor:providerID:)`, or Google's SDK in a ``ClosureNativeIdentityProvider``), then
    /// whatever the sign-on policy asks for, as ``continue(from:username:password:)`` does. The server checks the
    /// token it returns: the provider's signature, issuer, the app as audience, expiry, and the flow's single-use nonce.
    ///
    /// - Parameters:
    ///   - providerID: The provider's id in the server's configuration, such as `apple`.
    ///   - native: The provider's own sign-in, given the flow's nonce.
    /// - Throws: ``GatehouseError/unsupportedStep(_:)`` when the server takes no tokens from apps for this provider,
    ///   ``GatehouseError/cancelled`` when the person closed the provider's sheet, ``GatehouseError/userAgent(_:)``
    ///   when it failed, ``GatehouseError/invalidInput(_:)`` with the server's message for a token it refused, or the
    ///   errors of the steps after it.
    public func signIn(withProvider providerID: String, native: any NativeIdentityProvider) async throws -> UserSession {
        guard case .continue(let step) = await client.start(.login),
            let provider = step.identityProviders.first(where: { $0.providerID == providerID && $0.takesAppTokens })
        else {
            throw GatehouseError.unsupportedStep("the server takes no tokens from apps for the provider \(providerID)")
        }
        return try await signIn(from: await step.next(signingInWith: provider, native: native), values: [:])
    }

    /// Unlocks an account that too many wrong passwords locked for a while (``GatehouseError/throttled``): a code goes
    /// to the account's verified email address (``Step/verifyCode(factor:problem:)`` with ``SecondFactorKind/email``
    /// asks for it), and once it is accepted the account's failures are forgotten; then sign in again with
    /// ``login(username:password:)``. The server answers every name the same way, whether or not it has an account.
    ///
    /// - Throws: ``GatehouseError/unsupportedStep(_:)`` when the server offers no unlocking here,
    ///   ``GatehouseError/throttled`` after too many wrong codes, or what the step handler throws.
    public func unlock(username: String) async throws {
        guard case .continue(let signIn) = await client.start(.login, loginHint: username), signIn.step?.actions.contains(.unlock) == true
        else {
            throw GatehouseError.unsupportedStep("unlocking is not offered by this server")
        }
        // The locked-out node offers the action; a fresh sign-in node for the same name takes it as well.
        let first = await signIn.next(action: FlowActionID.unlock.rawValue, validate: false)
        var journey = Journey()
        journey.finished = { step in step.messages.contains { $0.code == "unlocked" } }
        guard case .reached = try await drive(from: first, values: [:], journey: journey) else {
            throw GatehouseError.unsupportedStep("unlocking signed in without a password")
        }
    }

    private func run(_ kind: FlowKind, values: [String: String]) async throws -> UserSession {
        var journey = Journey()
        journey.passkeyAgreed = values[Self.enrollmentChoiceKey] == EnrollmentChange.passkey.rawValue
        return try await signIn(from: await client.start(kind, loginHint: values["username"]), values: values, journey: journey)
    }

    /// What a flow being driven remembers between nodes.
    private struct Journey {
        /// Whether the person already chose to have a passkey made, so that its creation is not asked again.
        var passkeyAgreed = false
        /// Where a helper that does not sign in stops.
        var finished: @Sendable (ContinueNode) -> Bool = { _ in false }
    }

    /// How driving a flow ended.
    private enum Ending {
        case signedIn(UserSession)
        case reached(ContinueNode)
    }

    /// Answers nodes from `first` until the flow succeeds, or throws.
    private func signIn(from first: Node, values: [String: String], journey: Journey = Journey()) async throws -> UserSession {
        switch try await drive(from: first, values: values, journey: journey) {
        case .signedIn(let user): return user
        case .reached(let step): throw GatehouseError.unsupportedStep(step.id)
        }
    }

    /// Answers nodes from `first` until the flow succeeds or fails, or reaches a node where `journey` is finished.
    private func drive(from first: Node, values: [String: String], journey start: Journey) async throws -> Ending {
        var node = first
        var problem: String?
        var journey = start
        // A journey has a handful of steps; the bound stops a server (or a handler) that loops forever.
        for _ in 0..<32 {
            switch node {
            case .success(let success):
                return .signedIn(success.user)
            case .failure(let failure):
                throw failure.cause
            case .error(let error):
                // What the person typed (codes, new passwords, a number or address being set up) can be tried
                // again; everything else is for the caller.
                let retryable =
                    error.retry.step == .push || error.retry.step == .pushSignIn
                    || error.retry.collectors.contains { collector in
                        collector.field.map { Self.asksThePerson($0, status: error.retry.status) } ?? false
                    }
                guard retryable, error.retry.status != .registration else { throw error.error }
                problem = error.messages.first?.text
                node = .continue(error.retry)
            case .continue(let step):
                if journey.finished(step) { return .reached(step) }
                node = try await answer(step, values: values, problem: problem, journey: &journey)
                problem = nil
            }
        }
        throw GatehouseError.unsupportedStep("too many steps")
    }

    private func answer(_ original: ContinueNode, values: [String: String], problem: String?, journey: inout Journey) async throws -> Node {
        var step = original
        let fields = step.collectors.compactMap(\.field)
        // A passkey step (the sign-in node's passkey is for ``loginWithPasskey()``, not here): the provider answers.
        if let passkey = step.passkey, step.status != .signIn, step.status != .lockedOut {
            let notNow = step.submit(.skip)
            let another = step.submit(.choose)
            guard let passkeys else {
                // Without a provider a passkey can be neither made nor used: "Not now" where offered, else another factor.
                guard let away = notNow ?? another else { throw GatehouseError.unsupportedStep(step.id) }
                return await step.next(away)
            }
            if passkey.ceremony == .create, !journey.passkeyAgreed {
                switch try await stepHandler(.createPasskey(optional: notNow != nil)) {
                case .allow: journey.passkeyAgreed = true
                case .skip where notNow != nil: return await step.next(notNow!)
                case .chooseAnother where another != nil: return await step.next(another!)
                default: throw GatehouseError.unsupportedStep(step.id)
                }
            }
            step[passkey.key] = try await passkey.credential(from: passkeys)
            return await step.next()
        }
        if step.step == .push || step.step == .pushSignIn, let number = step.node.fields.first(where: { $0.key == "number" })?.defaultValue.flatMap({ Int($0) })
        {
            let wanted: FlowActionID
            switch try await stepHandler(.approveOnDevice(number: number, problem: problem)) {
            case .done: wanted = .check
            case .resend: wanted = .resend
            case .chooseAnother: wanted = .choose
            default: throw GatehouseError.unsupportedStep(step.id)
            }
            guard let action = step.submit(wanted) else { throw GatehouseError.unsupportedStep(step.id) }
            return await step.next(action)
        }
        if let choice = step.collectors.lazy.compactMap({ if case .singleChoice(let choice) = $0 { choice } else { nil } }).first {
            if choice.key == Self.enrollmentChoiceKey, let change = values[choice.key] {
                step[choice.key] = change
                return await step.next()
            }
            if choice.key == Self.enrollmentChoiceKey { throw GatehouseError.unsupportedStep(step.id) }
            // Without a provider a passkey cannot be made or used here: it is not offered.
            let options = choice.options.map { SecondFactorKind(rawValue: $0.value) }.filter { passkeys != nil || $0 != .passkey }
            let skip = step.submit(.skip)
            let question: Step =
                if step.status == .mfaEnrollmentRequired {
                    .chooseEnrollment(factors: options, optional: skip != nil)
                } else {
                    choice.key == "method" ? .chooseMethod(options) : .chooseFactor(options)
                }
            let reply = try await stepHandler(question)
            if reply == .skip, let skip, step.status == .mfaEnrollmentRequired { return await step.next(skip) }
            guard case .choose(let picked) = reply else { throw GatehouseError.unsupportedStep(step.id) }
            step[choice.key] = picked.rawValue
            if picked == .passkey { journey.passkeyAgreed = true }
            return await step.next()
        }
        if let number = fields.first(where: { $0.field.kind == .phoneNumber }), step.status == .mfaEnrollment {
            let method = step.codeSource.map { SecondFactorKind(rawValue: $0.rawValue) } ?? .sms
            return try await ask(.enterPhoneNumber(method: method, problem: problem), on: step, field: number.key)
        }
        if let address = fields.first(where: { $0.key == "email" }), step.status == .mfaEnrollment {
            let suggested = address.field.defaultValue.flatMap { $0.isEmpty ? nil : $0 }
            return try await ask(.enterEmailAddress(suggested: suggested, problem: problem), on: step, field: address.key)
        }
        if let qrCode = step.collectors.lazy.compactMap({ if case .qrCode(let code) = $0 { code } else { nil } }).first {
            let key = URLComponents(string: qrCode.content)?.queryItems?.first { $0.name == "secret" }?.value
            guard case .code(let code) = try await stepHandler(.enrollTOTP(uri: qrCode.content, key: key)) else {
                throw GatehouseError.unsupportedStep(step.id)
            }
            step["code"] = code
            return await step.next()
        }
        if fields.contains(where: { $0.field.kind == .oneTimeCode || $0.key == "code" }) {
            let answer = try await stepHandler(.verifyCode(factor: Self.factor(of: step), problem: problem))
            switch answer {
            case .code(let code):
                step["code"] = code
                return await step.next()
            case .chooseAnother, .resend, .skip, .useOtherMethod:
                let wanted: [FlowActionID] =
                    switch answer {
                    case .resend: [.resend]
                    case .skip: [.skip]
                    case .useOtherMethod: [.otherMethod]
                    default: [.choose, .change]
                    }
                guard let action = wanted.lazy.compactMap(step.submit).first else {
                    throw GatehouseError.unsupportedStep(step.id)
                }
                return await step.next(action)
            default:
                throw GatehouseError.unsupportedStep(step.id)
            }
        }
        if step.status != .registration, let field = fields.first(where: { $0.field.autocomplete == "new-password" }) {
            let reason: PasswordChangeReason =
                switch step.status {
                case .passwordWarning: .expiringSoon
                case .recovery: .reset
                default: .expired
                }
            switch try await stepHandler(.newPassword(reason: reason, problem: problem)) {
            case .password(let password):
                step[field.key] = password
                return await step.next()
            case .skip:
                guard let skip = step.submit(.skip) else { throw GatehouseError.unsupportedStep(step.id) }
                return await step.next(skip)
            default:
                throw GatehouseError.unsupportedStep(step.id)
            }
        }
        // Consent is the person's decision, asked every time: never answered by the helper.
        if step.status == .consent {
            let consent = step.consent ?? FlowConsent(application: .init(id: "", name: step.name), scopes: [])
            let allowed = try await stepHandler(.consent(consent)) == .allow
            guard let action = allowed ? step.submit : step.submit(.deny) else { throw GatehouseError.unsupportedStep(step.id) }
            return await step.next(action)
        }
        if step.status == .mfaEnrollment {
            let codes = step.collectors.flatMap { collector -> [String] in
                if case .label(let label) = collector { label.text.split(separator: " ").map(String.init) } else { [] }
            }
            _ = try await stepHandler(.saveRecoveryCodes(codes))
            return await step.next()
        }
        // A form: fill what the caller gave; a required field it did not give is a step this helper cannot answer.
        for field in fields where !field.field.isDisplayOnly {
            if let value = values[field.key] ?? (field.field.kind == .password ? values["password"] : nil) {
                step[field.key] = value
            } else if field.isRequired {
                throw GatehouseError.unsupportedStep(step.id)
            }
        }
        return await step.next()
    }

    /// Asks the person for `question`'s text and submits it as `field`.
    private func ask(_ question: Step, on original: ContinueNode, field: String) async throws -> Node {
        var step = original
        switch try await stepHandler(question) {
        case .phoneNumber(let text), .emailAddress(let text):
            step[field] = text
            return await step.next()
        case .chooseAnother:
            guard let back = step.submit(.choose) else { throw GatehouseError.unsupportedStep(step.id) }
            return await step.next(back)
        default:
            throw GatehouseError.unsupportedStep(step.id)
        }
    }

    /// Whether an error node's `field` is one the person typed and may correct: a code, a new password, or a
    /// phone number or email address being set up as a second factor.
    private static func asksThePerson(_ field: any FieldCollector, status: SignInStatus) -> Bool {
        field.field.kind == .oneTimeCode || field.field.autocomplete == "new-password"
            || (status == .mfaEnrollment && (field.field.kind == .phoneNumber || field.key == "email"))
            || ([.mfaChallenge, .mfaEnrollment].contains(status) && [.passkeyCreate, .passkeyGet].contains(field.field.kind))
    }

    /// Which factor a code node is for, as the node says (``ContinueNode/codeSource``); a node from a server that
    /// does not say is named by the last part of its id.
    private static func factor(of step: ContinueNode) -> SecondFactorKind {
        if let source = step.codeSource { return SecondFactorKind(rawValue: source.rawValue) }
        return SecondFactorKind(rawValue: String(step.id.split(separator: ".").last ?? ""))
    }
}
