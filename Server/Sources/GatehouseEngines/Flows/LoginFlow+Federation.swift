import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Signing in with another identity provider. The sign-in and registration nodes offer each configured provider as
/// an `idp` action whose URL (``FederationController``) sends the browser there with a fresh `state`, `nonce` and PKCE
/// verifier kept in the flow; the answer comes back as the `idp_callback` action (from the hosted page's callback, or
/// from the app that the callback sent it to). A known identity signs in to its account; a new one makes an account
/// from the provider's claims, or, when the address already has one (or the provider only links), waits on
/// `login.idp.link` until the person proves that account.
extension LoginFlow {
    /// The answer of a provider, worked out before the submission's transaction (it takes requests to the provider).
    package enum UpstreamAnswer: Sendable {
        case profile(UpstreamProfile)
        case refused(FederationError)
    }

    /// The configured providers as actions, on the nodes that offer them: signing in and creating an account.
    package func identityProviderActions(for state: FlowStore.LoginState) -> [FlowAction] {
        guard let id = state.id, !settings.identityProviders.isEmpty else { return [] }
        let key: String
        switch (state.journey, state.step) {
        case (.signIn, .credentials), (.signIn, .identify), (.enrollment, .credentials), (.enrollment, .identify): key = "flow.provider.sign_in"
        case (.registration(pending: nil), .register): key = "flow.provider.sign_up"
        default: return []
        }
        return settings.identityProviders.map { provider in
            FlowAction(
                id: FlowActionID.identityProviderPrefix + provider.id, kind: .idp, label: say(key, ["provider": provider.name]).text,
                url: settings.url("/flows/\(id)/idp/\(provider.id)"), icon: provider.icon,
                nonce: provider.native ? state.federation.nativeNonce : nil)
        }
    }

    /// Gatehouse's one callback for every provider: the redirect URI to register at each.
    package var upstreamRedirectURI: String { settings.url("/login/idp/callback") }

    package func upstreamSignIn(_ provider: IdentityProvider) -> UpstreamSignIn {
        UpstreamSignIn(provider: provider, directory: upstreams, clock: clock, redirectURI: upstreamRedirectURI)
    }

    /// Starts signing in with `providerID` from the flow `id`: keeps a new `state`, `nonce` and verifier in the flow
    /// and returns the provider's URL to send the browser to. `nil` when the flow's node does not offer the provider.
    package func startUpstream(_ id: String, state: FlowStore.LoginState, providerID: String) async throws -> Result<String, FederationError>? {
        guard identityProviderActions(for: state).contains(where: { $0.id == FlowActionID.identityProviderPrefix + providerID }),
            let provider = settings.identityProvider(providerID)
        else { return nil }
        let secret = SecureRandom.token()
        let nonce = SecureRandom.token()
        let verifier = PKCE.makeVerifier()
        let url: String
        do {
            url = try await upstreamSignIn(provider).authorizationURL(state: id + "." + secret, nonce: nonce, verifier: verifier)
        } catch {
            logger.warning("An identity provider could not be reached", metadata: ["provider": "\(provider.id)", "detail": "\(error.detail)"])
            return .failure(error)
        }
        var next = state
        next.federation.lastProviderID = provider.id
        next.federation.pending = PendingUpstream(
            providerID: provider.id, stateDigest: TokenDigest.hex(secret), nonce: nonce,
            sealedVerifier: try authenticators.box.seal(Data(verifier.utf8)))
        try await flows.update(id, to: next)
        return .success(url)
    }

    /// Checks a provider's answer against the sign-in this flow started and, when it belongs to it, redeems the code:
    /// done before the transaction, as it waits on the provider.
    package func prepareUpstream(for state: FlowStore.LoginState, values: [String: FieldValue]) async -> UpstreamAnswer {
        let text = { (key: String) in values[key]?.text }
        guard let pending = state.federation.pending, let provider = settings.identityProvider(pending.providerID) else {
            // No sign-in is waiting (used already, or it never started): an error the app passed on is shown as it is,
            // naming the provider this flow last went to, if any.
            let name = state.federation.lastProviderID.flatMap { settings.identityProvider($0)?.name }
            if let error = text("error") { return .refused(.denied(name, error: error, description: text("error_description"))) }
            return .refused(.invalidState(name))
        }
        let parts = (text("state") ?? "").split(separator: ".", maxSplits: 1)
        guard parts.count == 2, String(parts[0]) == state.id, ConstantTime.equals(TokenDigest.hex(String(parts[1])), pending.stateDigest) else {
            return .refused(.invalidState(provider.name))
        }
        if let error = text("error") { return .refused(.denied(provider.name, error: error, description: text("error_description"))) }
        guard let code = text("code"), !code.isEmpty, code.utf8.count <= 4096,
            let verifier = try? authenticators.box.open(pending.sealedVerifier)
        else { return .refused(.denied(provider.name, error: "invalid_request", description: "no code")) }
        do {
            let profile = try await upstreamSignIn(provider).redeem(
                code: code, verifier: String(decoding: verifier, as: UTF8.self), nonce: pending.nonce, issuer: text("iss")
            ) { [box = federatedTokens] in try box.seal($0) }
            return .profile(profile)
        } catch {
            return .refused(error)
        }
    }

    /// Checks an ID token an app obtained from a provider itself (`idp_token`) against the flow's nonce, before the
    /// transaction: the provider must be one `offered` on the node, and take tokens from apps.
    package func prepareAppToken(for state: FlowStore.LoginState, offered: [FlowAction], values: [String: FieldValue]) async -> UpstreamAnswer {
        let providerID = values["provider"]?.text ?? ""
        guard offered.contains(where: { $0.id == FlowActionID.identityProviderPrefix + providerID && $0.nonce != nil }),
            let provider = settings.identityProvider(providerID), let nonce = state.federation.nativeNonce
        else {
            return .refused(.denied(nil, error: "invalid_request", description: "this node offers no provider \(providerID) that takes an app's token"))
        }
        guard let token = values["id_token"]?.text, !token.isEmpty else {
            return .refused(.invalidIdentity(provider.name, "no id_token was given"))
        }
        do {
            return .profile(try await upstreamSignIn(provider).verifyNative(idToken: token, nonce: nonce, name: values["name"]?.text))
        } catch {
            return .refused(error)
        }
    }

    /// A provider's answer, checked before the transaction: the waiting sign-in is used up either way (an app's token
    /// renews the nonce, `renewingNonce`, so no token counts twice); a known identity signs in, a new one makes or
    /// links an account.
    package func advanceUpstream(_ id: String, state: FlowStore.LoginState, renewingNonce: Bool = false) async throws -> Outcome {
        var next = state
        next.federation.pending = nil
        if renewingNonce { next.federation.nativeNonce = SecureRandom.token() }
        guard let answer = upstream else { throw FlowEngineError.upstreamNotPrepared }
        let profile: UpstreamProfile
        switch answer {
        case .refused(let error):
            logger.notice(
                "Signing in with an identity provider failed", metadata: ["reason": "\(error.reason.rawValue)", "detail": "\(error.detail)"])
            var details = ["factor": "fed", "reason": error.reason.rawValue]
            details["provider"] = state.federation.pending?.providerID ?? state.federation.lastProviderID
            try await audit.record(.signInFailed, client: state.request.clientID, details: details)
            if next != state { try await flows.update(id, to: next) }
            let message = FlowMessage(level: .error, text: wording(error.message), code: error.reason.rawValue)
            return .retry(node(for: next, messages: [message]), error.reason == .unavailable ? .upstreamUnavailable : .invalidCredentials)
        case .profile(let answered):
            profile = answered
        }
        guard let provider = settings.identityProvider(profile.providerID) else { return .gone }
        if let userID = try await federatedIdentities.signIn(profile),
            let user = try await users.find(id: userID)
        {
            logger.info("Signed in with an identity provider", metadata: ["user": "\(user.id)", "provider": "\(provider.id)"])
            return try await afterUpstream(id, state: next, user: user, profile: profile, provider: provider)
        }
        // A new identity. An address the provider vouches for that an account already has: that account, once proven —
        // unless the account never proved the address either: then the provider's proof claims it for a new account.
        if let email = profile.email, profile.emailVerified, let owner = try await users.find(usernameOrEmail: email) {
            guard !owner.emailVerified, provider.newIdentities == .create else {
                return try await startLinking(id, state: next, profile: profile, candidate: owner.emailVerified ? owner : nil, provider: provider)
            }
            try await claimProvenEmail(email, clientID: state.request.clientID)
        }
        guard provider.newIdentities == .create else {
            return try await startLinking(id, state: next, profile: profile, candidate: nil, provider: provider)
        }
        // A new account: as the hooks at `registration` decided before the transaction.
        let names: RegistrationHooks.Names
        switch passwords.registration {
        case .allow(let set): names = set
        case .deny(let message):
            logger.info("A hook refused a registration through an identity provider", metadata: ["provider": "\(provider.id)"])
            return try await refuseByHook(
                id, state: next, user: nil, methods: ["fed"], reason: "registration_denied", error: "access_denied",
                description: message ?? say("flow.registration.denied").text)
        case .unavailable:
            return try await refuseByHook(
                id, state: next, user: nil, methods: ["fed"], reason: "hook_unavailable", error: "temporarily_unavailable",
                description: say("flow.registration.unavailable").text)
        }
        guard let user = try await createAccount(for: profile, provider: provider, names: names) else {
            // The address is an account's, but the provider does not vouch for it: only proving that account links it.
            return try await startLinking(id, state: next, profile: profile, candidate: nil, provider: provider)
        }
        try await federatedIdentities.link(profile, to: user.id)
        logger.info("Account created from an identity provider", metadata: ["user": "\(user.id)", "provider": "\(provider.id)"])
        try await audit.record(.accountCreated, user: user.id, client: state.request.clientID, details: ["provider": provider.id])
        return try await afterUpstream(id, state: next, user: user, profile: profile, provider: provider)
    }

    /// Signed in as `user` through the provider: one factor (`fed`), unless the provider is trusted for its second
    /// factor and used one; then the sign-on policy's second factor as after a password.
    private func afterUpstream(
        _ id: String, state: FlowStore.LoginState, user: User, profile: UpstreamProfile, provider: IdentityProvider
    ) async throws
        -> Outcome
    {
        if user.isLocked { return .retry(node(for: state, messages: [FlowMessage(level: .error, text: say(LoginMessages.locked), code: "locked")]), .locked) }
        var next = state
        let multiFactor = provider.trustMFA && profile.methods.contains("mfa")
        let methods = ["fed"] + (multiFactor ? profile.methods.filter { $0 != "fed" } : [])
        let account = FlowStore.ProvenAccount(userID: user.id, methods: methods, passwordSettled: true)
        return try await asFirstFactorHooksDecided(id, state: next, user: user, account: account) {
            if multiFactor, case .signIn = state.journey {
                next.username = user.username
                next.account = account
                return try await complete(id, state: next, user: user)
            }
            return try await afterFirstFactor(id, state: next, user: user, account: account)
        }
    }

    /// Asks the hooks about a provider's answer before the transaction, like a password's: those at `first_factor` about
    /// an identity already linked to an account that can sign in; those at `registration` about a new identity that
    /// would make its account (the account the step makes is not asked about again at `first_factor`).
    package mutating func askFirstFactorHooks(about profile: UpstreamProfile, for state: FlowStore.LoginState) async throws {
        if let userID = try await federatedIdentities.account(provider: profile.providerID, subject: profile.subject) {
            guard !firstFactorHooks.targets.isEmpty, let user = try await users.find(id: userID), !user.isLocked else { return }
            await passwords.askFirstFactorHooks(firstFactorHooks, about: user, factor: "fed", clientID: state.request.clientID, address: source.text)
        } else if let provider = settings.identityProvider(profile.providerID), provider.newIdentities == .create, !registrationHooks.targets.isEmpty {
            let (username, email) = Self.newAccountNames(for: profile, provider: provider)
            passwords.registration = await registrationHooks.decide(
                username: Self.usernameCharacters(username), profile: UserProfile(email: email, name: profile.name), clientID: state.request.clientID,
                address: source.text)
        }
    }

    /// The username (before it is made unique) and email address an account made from `profile` starts from.
    private static func newAccountNames(for profile: UpstreamProfile, provider: IdentityProvider) -> (username: String, email: String) {
        let email = profile.email ?? "\(usernameCharacters(profile.subject).prefix(40))@\(provider.id).invalid"
        return (profile.username ?? String(email.prefix { $0 != "@" }), email)
    }

    /// An account made from the provider's claims, without a password; `nil` when its address belongs to another
    /// account. The username is the provider's (or the address's local part), made unique.
    private func createAccount(for profile: UpstreamProfile, provider: IdentityProvider, names: RegistrationHooks.Names) async throws -> User? {
        let (username, email) = Self.newAccountNames(for: profile, provider: provider)
        return try await createAccountWithoutPassword(
            usernameFrom: username, fallback: provider.id, profile: names.applied(to: UserProfile(email: email, name: profile.name)),
            emailVerified: profile.emailVerified)
    }

    /// An account without a password (it signs in another way: a provider, a code by email); `nil` when its address
    /// belongs to another account. The username is `hint`'s allowed characters (or `fallback`), made unique.
    package func createAccountWithoutPassword(usernameFrom hint: String, fallback: String, profile: UserProfile, emailVerified: Bool) async throws -> User? {
        let base = Self.usernameCharacters(hint)
        let stem = base.isEmpty ? fallback : String(base.prefix(48))
        let candidates = [stem] + (2...9).map { "\(stem)\($0)" } + [stem + "-" + SecureRandom.token().prefix(6).lowercased()]
        for username in candidates where try await users.find(username: username) == nil {
            do {
                return try await TransactionScope.recoverable {
                    try await users.create(
                        username: username, profile: profile, passwordHash: User.noPassword, emailVerified: emailVerified, phoneVerified: false)
                }
            } catch let error as DatabaseError where error.isDuplicate {
                if try await users.find(usernameOrEmail: profile.email) != nil { return nil }
            }
        }
        return nil
    }

    /// `text` with only the characters usernames may have (no `@`, which only an account's own address may use).
    package static func usernameCharacters(_ text: String) -> String {
        String(text.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
    }

    /// Waits on `login.idp.link` for the person to prove an account (`candidate`, when the provider's address named one).
    private func startLinking(
        _ id: String, state: FlowStore.LoginState, profile: UpstreamProfile, candidate: User?, provider: IdentityProvider
    ) async throws -> Outcome {
        var next = state
        next.step = .linkAccount
        next.federation.link = profile
        next.federation.candidateID = candidate?.id
        next.username = candidate?.username
        next.lockedOut = false
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// The linking steps' nodes.
    package func federationNode(_ step: StepFamily.Linking, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let providerName = state.federation.link.flatMap { settings.identityProvider($0.providerID)?.name } ?? ""
        let cancel = FlowAction(id: .cancel, kind: .submit, label: say("flow.cancel"))
        switch step {
        case .linkAccount:
            var username = usernameField
            username.defaultValue = state.username
            let known = state.federation.candidateID != nil
            let description =
                known
                ? say("flow.link.description.known", ["provider": providerName]) : say("flow.link.description.default", ["provider": providerName])
            let code = known ? [FlowAction(id: .emailCode, kind: .submit, label: say("flow.link.email_code"))] : []
            return FlowNode(
                id: FlowStep.linkAccount.rawValue, name: say("flow.link.name", ["provider": providerName]), description: description, category: .signIn,
                fields: [username, passwordField], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.link.submit"))] + code + [cancel],
                messages: messages)
        case .linkCode:
            return FlowNode(
                id: FlowStep.linkCode.rawValue, name: say("flow.email_sign_in.code.name"),
                description: say("flow.link.code.description", ["place": state.secondFactor.sentTo ?? "", "provider": providerName]),
                category: .verification, fields: [codeField],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.link.code.submit")), resendAction, cancel], messages: messages)
        }
    }

    /// A submission on the linking steps.
    package func advanceLinking(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        if action == .cancel {
            let back = state.backToSignIn(username: nil)
            try await flows.update(id, to: back)
            return .next(node(for: back))
        }
        let candidate: User? = if let candidateID = state.federation.candidateID { try await users.find(id: candidateID) } else { nil }
        switch (state.step, action) {
        case (.linkAccount, .emailCode), (.linkCode, .resend):
            guard let candidate, candidate.emailVerified else { return .next(node(for: state)) }
            if let refused = try await sendCode(
                id, state: state, purpose: .linkIdentity, channel: .email, to: candidate.email, template: .signInCode, resend: state.step == .linkCode)
            {
                return refused
            }
            var next = state
            next.step = .linkCode
            next.secondFactor.sentTo = Self.masked(candidate.email, on: .email)
            try await flows.update(id, to: next)
            return .next(node(for: next, messages: [FlowMessage(level: .info, text: say("flow.code.sent"), code: "code_sent")]))
        case (.linkCode, _):
            guard let candidate else { return .gone }
            switch try await checkCode(id, state: state, purpose: .linkIdentity, code: values["code"]?.text ?? "", owner: candidate) {
            case .refused(let outcome): return outcome
            case .accepted:
                // The mailbox proved the account; the sign-in itself is the provider's, and the policy's second factor still applies.
                let account = FlowStore.ProvenAccount(userID: candidate.id, methods: ["fed"], passwordSettled: true)
                return try await afterFirstFactor(id, state: state, user: candidate, account: account)
            }
        default:
            // The password, checked before the transaction like the sign-in node's.
            func again(_ text: Phrase, _ problem: Problem, code: String) -> Outcome {
                var retried = state
                retried.username = values["username"]?.text
                return .retry(node(for: retried, messages: [FlowMessage(level: .error, text: text, code: code)]), problem)
            }
            guard let checked = passwords.signIn else { throw FlowEngineError.passwordNotPrepared }
            switch checked {
            case .invalidCredentials: return again(say(LoginMessages.invalidCredentials), .invalidCredentials, code: "invalid_credentials")
            case .throttled: return again(say(LoginMessages.throttled), .throttled, code: "throttled")
            case .locked: return again(say(LoginMessages.locked), .locked, code: "locked")
            case .authenticated(let user): return try await afterCheckedPassword(id, state: state, user: user)
            }
        }
    }

    /// Links the identity waiting in `state` to the account the flow proved; called as the flow finishes. Returns the
    /// state to finish with: the provider took part, so `amr` has `fed`. An identity linked meanwhile (another tab)
    /// stays with its account, and this sign-in goes on without linking.
    package func linkWaitingIdentity(_ state: FlowStore.LoginState) async throws -> FlowStore.LoginState {
        guard let profile = state.federation.link, let account = state.account else { return state }
        do {
            try await TransactionScope.recoverable { try await federatedIdentities.link(profile, to: account.userID) }
            logger.info("Identity provider linked", metadata: ["user": "\(account.userID)", "provider": "\(profile.providerID)"])
            try await audit.record(.identityLinked, user: account.userID, client: state.request.clientID, details: ["provider": profile.providerID])
        } catch let error as DatabaseError where error.isDuplicate {
            logger.notice("An identity was linked by another sign-in first", metadata: ["provider": "\(profile.providerID)"])
            return state
        }
        var linked = state
        if !account.methods.contains("fed") { linked.account?.methods.insert("fed", at: 0) }
        return linked
    }
}
