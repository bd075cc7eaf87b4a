import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Passkeys in a flow: set one up (a WebAuthn registration) and use one as a second factor (an assertion). The flow
/// keeps the ceremony's challenge; a failed attempt counts like a wrong code and replaces the challenge.
extension LoginFlow {
    /// The relying party passkeys are made for, or `nil` when the issuer has no domain for them.
    package var relyingParty: RelyingParty? {
        settings.webAuthn.relyingParty(issuer: settings.issuer)
    }

    /// Moves `state` to setting up a passkey for `user`.
    package func startPasskeyEnrollment(_ state: inout FlowStore.LoginState, user: User) async throws {
        guard let party = relyingParty else { throw OAuthError.invalidRequest("Passkeys are not available on this server.") }
        let challenge = SecureRandom.token()
        let options = PasskeyOptions.creation(
            policy: settings.webAuthn, party: party, serviceName: settings.serviceName,
            userHandle: try await passkeys.userHandle(for: user.id), username: user.username, displayName: user.name ?? user.username,
            challenge: challenge, existing: try await passkeys.list(userID: user.id))
        state.secondFactor.passkey = PasskeyCeremony(challenge: challenge, options: options)
        state.step = .enrollPasskey
    }

    /// Moves `state` to signing in with one of `user`'s passkeys.
    package func startPasskeyChallenge(_ state: inout FlowStore.LoginState, user: User) async throws {
        guard let party = relyingParty else { throw OAuthError.invalidRequest("Passkeys are not available on this server.") }
        let challenge = SecureRandom.token()
        let options = PasskeyOptions.request(
            policy: settings.webAuthn, party: party, challenge: challenge, allowed: try await passkeys.list(userID: user.id))
        state.secondFactor.passkey = PasskeyCeremony(challenge: challenge, options: options)
        state.step = .passkey
    }

    /// A new passkey's credential, sent on ``FlowStep/enrollPasskey``: verified, stored and counted for this sign-in.
    package func registerPasskey(_ id: String, state: FlowStore.LoginState, values: [String: FieldValue], user: User) async throws -> Outcome {
        guard let ceremony = state.secondFactor.passkey, let party = relyingParty else { return .gone }
        let verified: RelyingParty.Registration
        let transports: [String]
        do {
            let response = try PasskeyResponse.decode(
                PasskeyResponse.Registration.self, from: values[Self.credentialKey]?.text ?? "", id: { ($0.type, $0.id, $0.rawId) })
            verified = try party.verifyRegistration(
                clientDataJSON: try PasskeyResponse.bytes(response.response.clientDataJSON, "clientDataJSON"),
                attestationObject: try PasskeyResponse.bytes(response.response.attestationObject, "attestationObject"),
                challenge: try PasskeyResponse.bytes(ceremony.challenge, "challenge"))
            guard Base64URL.encode(verified.credentialID) == response.rawId else { throw WebAuthnError.malformed("rawId is not the credential's id") }
            if settings.webAuthn.requireAttestation, !verified.attestation.isCertified {
                throw WebAuthnError.invalidAttestation("this site accepts only authenticators that attest their model")
            }
            transports = (response.response.transports ?? []).filter { $0.count <= 32 }.prefix(8).map { $0 }
        } catch let error as WebAuthnError {
            return try await passkeyRefused(id, state: state, user: user, error: error)
        }
        let name = Self.passkeyName(values["name"]?.text)
        do {
            // Recoverable: a credential registered before sends the person back to try another authenticator.
            _ = try await TransactionScope.recoverable {
                try await passkeys.add(userID: user.id, registration: verified, name: name, transports: transports)
            }
        } catch let error as DatabaseError where error.isDuplicate {
            return try await passkeyRefused(id, state: state, user: user, error: .alreadyRegistered)
        }
        logger.info(
            "Registered a passkey",
            metadata: ["user": "\(user.id)", "attestation": "\(verified.attestation.name)", "algorithm": "\(verified.publicKey.algorithm)"])
        try await notify(user, .passkeyAdded)
        try await audit.record(.factorEnrolled, user: user.id, client: state.request.clientID, details: ["factor": "passkey"])
        var next = state
        next.secondFactor.passkey = nil
        if case .enrollment = state.journey { next.journey = .enrollment(done: true) }
        // Making a passkey proves the person holds the new authenticator, as confirming a new app's code does.
        return try await complete(id, state: next.adding(methods: [verified.backupEligible ? "swk" : "hwk"]), user: user)
    }

    /// An assertion sent on ``FlowStep/passkey``: verified with one of `user`'s passkeys, used once.
    package func usePasskey(_ id: String, state: FlowStore.LoginState, values: [String: FieldValue], user: User) async throws -> Outcome {
        guard let ceremony = state.secondFactor.passkey, let party = relyingParty else { return .gone }
        guard let guess = try await takeCodeCheck(id, state: state) else { return try await guessesUsedUp(id) }
        let passkey: Passkey
        let assertion: RelyingParty.Assertion
        do {
            // Another user's passkey (or none) is refused the same way: nothing says whose it was.
            (passkey, assertion) = try await verifiedAssertion(values, ceremony: ceremony, party: party, userID: user.id)
        } catch let error as WebAuthnError {
            return try await passkeyRefused(id, state: state, user: user, error: error, guess: guess)
        }
        try await flows.clearCodeChecks(id)
        var next = state
        next.secondFactor.passkey = nil
        return try await complete(id, state: next.adding(methods: passkey.methodReferences(userVerified: assertion.userVerified)), user: user)
    }

    /// The assertion in `values`, verified against `ceremony`'s challenge with the passkey it names (one of
    /// `userID`'s, or any whose user handle matches when `userID` is `nil`), checked further by `accept`, and counted:
    /// its counter moves from the value checked, so a concurrent use of the same assertion finds it moved.
    private func verifiedAssertion(
        _ values: [String: FieldValue], ceremony: PasskeyCeremony, party: RelyingParty, userID: String?,
        accept: (Passkey, RelyingParty.Assertion) throws(WebAuthnError) -> Void = { _, _ in }
    ) async throws -> (Passkey, RelyingParty.Assertion) {
        let (passkey, assertion) = try await checkedAssertion(values, ceremony: ceremony, party: party, userID: userID, logging: true, accept: accept)
        if assertion.counterRegressed {
            logger.warning(
                "A passkey's counter did not move forward: it may have been cloned (let in: webauthn.counter_regression is warn)",
                metadata: ["user": "\(passkey.userID)", "passkey": "\(passkey.id)"])
        }
        guard try await passkeys.recordUse(of: passkey, assertion: assertion) else { throw WebAuthnError.wrongChallenge }
        return (passkey, assertion)
    }

    /// The assertion in `values` checked as ``verifiedAssertion(_:ceremony:party:userID:accept:)`` checks it, without
    /// counting it: it changes nothing, so it may be done before the step's transaction too.
    private func checkedAssertion(
        _ values: [String: FieldValue], ceremony: PasskeyCeremony, party: RelyingParty, userID: String?, logging: Bool,
        accept: (Passkey, RelyingParty.Assertion) throws(WebAuthnError) -> Void
    ) async throws -> (Passkey, RelyingParty.Assertion) {
        let response = try PasskeyResponse.decode(
            PasskeyResponse.Assertion.self, from: values[Self.credentialKey]?.text ?? "", id: { ($0.type, $0.id, $0.rawId) })
        guard let passkey = try await passkeys.find(credentialID: try PasskeyResponse.bytes(response.rawId, "rawId")),
            userID == nil || passkey.userID == userID
        else { throw WebAuthnError.wrongCredential }
        // A discoverable passkey names its user; it must be the passkey's.
        if let handle = response.response.userHandle, !handle.isEmpty,
            try await passkeys.userID(forHandle: try PasskeyResponse.bytes(handle, "userHandle")) != passkey.userID
        {
            throw WebAuthnError.wrongCredential
        }
        let assertion: RelyingParty.Assertion
        do {
            assertion = try party.verifyAssertion(
                clientDataJSON: try PasskeyResponse.bytes(response.response.clientDataJSON, "clientDataJSON"),
                authenticatorData: try PasskeyResponse.bytes(response.response.authenticatorData, "authenticatorData"),
                signature: try PasskeyResponse.bytes(response.response.signature, "signature"),
                challenge: try PasskeyResponse.bytes(ceremony.challenge, "challenge"), credential: passkey.stored)
        } catch {
            // The security event: an authenticator that may have been copied.
            if logging, case .signCountRegressed = error {
                logger.warning(
                    "A passkey's counter went backwards: it may have been cloned; refused", metadata: ["user": "\(passkey.userID)", "passkey": "\(passkey.id)"])
            }
            throw error
        }
        try accept(passkey, assertion)
        return (passkey, assertion)
    }

    /// Without the password, the passkey must be both factors: something held and the user verified.
    private static func requireUserVerified(_: Passkey, _ assertion: RelyingParty.Assertion) throws(WebAuthnError) {
        guard assertion.userVerified else { throw .userNotVerified }
    }

    /// Asks the hooks at `first_factor` about the account a passkey signs in to (`hwk` or `swk`), before the
    /// transaction like the password's: only when the assertion checks out, so nobody is asked about a failed one.
    package mutating func askFirstFactorHooks(aboutPasskeyIn values: [String: FieldValue], for state: FlowStore.LoginState) async {
        guard !firstFactorHooks.targets.isEmpty, let ceremony = state.secondFactor.passkey, let party = relyingParty,
            let (passkey, _) = try? await checkedAssertion(
                values, ceremony: ceremony, party: party, userID: nil, logging: false, accept: Self.requireUserVerified),
            let user = try? await users.find(id: passkey.userID), !user.isLocked
        else { return }
        await passwords.askFirstFactorHooks(
            firstFactorHooks, about: user, factor: passkey.methodReferences(userVerified: true)[0], clientID: state.request.clientID, address: source.text)
    }

    /// A credential that did not verify: the same step with a new challenge and a message saying why. A sign-in's
    /// attempt is the flow's `guess`-th in a row, and the one that uses up the policy's attempts ends the flow.
    private func passkeyRefused(
        _ id: String, state: FlowStore.LoginState, user: User?, error: WebAuthnError, guess: Int? = nil
    ) async throws -> Outcome {
        logger.info("Passkey refused", metadata: ["user": "\(user?.id ?? "-")", "step": "\(state.step)", "reason": "\(error)"])
        // Input that is not a credential at all is a malformed request: a 400 that changes nothing.
        if error.isMalformed { throw OAuthError.invalidRequest(error.description) }
        if let guess, guess >= settings.signOnPolicy(for: state.request.clientID).maxCodeAttempts {
            _ = try await flows.finish(id)
            return .failed(say(LoginMessages.tooManyCodes).text)
        }
        // The same step again, with a challenge of its own.
        var again = state
        switch (state.step, user) {
        case (.passkey, let user?): try await startPasskeyChallenge(&again, user: user)
        case (.enrollPasskey, let user?): try await startPasskeyEnrollment(&again, user: user)
        default: startPasskeySignIn(&again)
        }
        try await flows.update(id, to: again)
        let message = FlowMessage(level: .error, text: error.description, field: Self.credentialKey, code: "invalid_credential")
        return .retry(node(for: again, messages: [message]), user == nil ? .invalidCredentials : .invalidCode)
    }

    package static let credentialKey = "credential"
    /// The sign-in node's action that signs in with a passkey instead of the password.

    /// Offers a passkey on the sign-in node when the client's policy lets one sign in alone: a challenge for any
    /// passkey of this relying party (the person is not known yet, so none is named).
    package func startPasskeySignIn(_ state: inout FlowStore.LoginState) {
        guard settings.signOnPolicy(for: state.request.clientID).passkeySignIn, let party = relyingParty else { return }
        let challenge = SecureRandom.token()
        let options = PasskeyOptions.request(policy: settings.webAuthn, party: party, challenge: challenge, allowed: [])
        state.secondFactor.passkey = PasskeyCeremony(challenge: challenge, options: options)
    }

    /// An assertion sent with the sign-in node's passkey action: the passkey names its user (by its credential id and
    /// user handle), must have verified them, and signs in without the password, multi-factor.
    package func signInWithPasskey(_ id: String, state: FlowStore.LoginState, values: [String: FieldValue]) async throws -> Outcome {
        guard let ceremony = state.secondFactor.passkey, let party = relyingParty else {
            throw OAuthError.invalidRequest("This sign-in does not offer passkeys.")
        }
        guard let guess = try await takeCodeCheck(id, state: state) else { return try await guessesUsedUp(id) }
        let passkey: Passkey
        let user: User
        do {
            let (found, _) = try await verifiedAssertion(values, ceremony: ceremony, party: party, userID: nil, accept: Self.requireUserVerified)
            guard let owner = try await users.find(id: found.userID) else { throw WebAuthnError.wrongCredential }
            passkey = found
            user = owner
        } catch let error as WebAuthnError {
            return try await passkeyRefused(id, state: state, user: nil, error: error, guess: guess)
        }
        if user.isLocked { return .retry(node(for: state, messages: [FlowMessage(level: .error, text: say(LoginMessages.locked), code: "locked")]), .locked) }
        try await flows.clearCodeChecks(id)
        var next = state
        next.username = user.username
        next.secondFactor.passkey = nil
        // The password played no part: its expiry is for the next password sign-in.
        let account = FlowStore.ProvenAccount(userID: user.id, methods: passkey.methodReferences(userVerified: true) + ["mfa"], passwordSettled: true)
        next.account = account
        return try await asFirstFactorHooksDecided(id, state: next, user: user, account: account) {
            logger.info("Signed in with a passkey", metadata: ["user": "\(user.id)"])
            return try await complete(id, state: next, user: user)
        }
    }

    /// The name a new passkey is stored under: what the person typed, trimmed and shortened, or "Passkey".
    package static func passkeyName(_ typed: String?) -> String {
        let name = (typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines).filter { !$0.isNewline }
        return name.isEmpty ? "Passkey" : String(name.prefix(64))
    }

    /// The node of a passkey step.
    package func passkeyNode(_ step: StepFamily.Passkey, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let clientName = state.clientName ?? state.request.clientID
        let options = state.secondFactor.passkey?.options ?? "{}"
        switch step {
        case .enrollPasskey:
            let fields = [
                FlowField(
                    key: Self.credentialKey, kind: .passkeyCreate, label: say("flow.enroll_passkey.field"),
                    defaultValue: options),
                FlowField(
                    key: "name", kind: .text, label: say("flow.enroll_passkey.name_field"), required: false, validation: FieldValidation(maxLength: 64),
                    defaultValue: say("factor.passkey").text),
            ]
            // Offered (after registration, or when a policy only offers a second factor): "Not now" too.
            let later = state.secondFactor.enrollmentOptional ? [FlowAction(id: .skip, kind: .submit, label: say("flow.not_now"))] : []
            let canChooseAgain: Bool =
                if case .enrollment = state.journey { true } else { offeredFactors(for: state).count > 1 }
            let back = later + (canChooseAgain ? [FlowAction(id: .choose, kind: .submit, label: say("flow.enroll.something_else"))] : [])
            return FlowNode(
                id: FlowStep.enrollPasskey.rawValue, name: say("flow.enroll_passkey.name"),
                description: say("flow.enroll_passkey.description", ["client": clientName]),
                category: .mfaEnrollment, fields: fields, actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.enroll_passkey.submit"))] + back,
                messages: messages)
        case .passkey:
            let another = state.secondFactor.factors.count > 1 ? [FlowAction(id: .choose, kind: .submit, label: say("flow.second_factor.another"))] : []
            return FlowNode(
                id: FlowStep.passkey.rawValue, name: say("flow.passkey.name"), description: say("flow.passkey.description", ["client": clientName]),
                category: .mfaChallenge,
                fields: [FlowField(key: Self.credentialKey, kind: .passkeyGet, label: say("flow.passkey.field"), defaultValue: options)],
                actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.passkey.submit"))] + another, messages: messages)
        }
    }
}
