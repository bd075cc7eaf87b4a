import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// The password work of a submission, done before its database transaction: a password hash takes tens of
/// milliseconds, and inside the transaction it would hold the database's writer (on SQLite, every other write)
/// for that long. The step handlers then only read the results.
package struct PreparedPasswords: Sendable {
    /// The sign-in step's password check (with its attempt limits), for the sign-in nodes' primary action.
    package var signIn: PasswordAuthenticator.Outcome?
    /// The hash of the new password typed on a registration or password node, when it passes the password
    /// policy (the handler checks the policy again, and reports what is wrong).
    package var newPasswordHash: String?
    /// Whether that new password is the account's current one (a change must pick another).
    package var newPasswordIsCurrent = false
    /// What the hooks at `first_factor` decided once a first factor (the password, another provider's answer) proved
    /// the account, asked before the transaction too: a hook may take seconds.
    package var firstFactor = FirstFactorHooks.Decision.allow
    /// The account ``firstFactor`` is about: a decision holds only for the account the handler signs in.
    package var firstFactorAccount: String?
    /// What the hooks at `registration` decided about a registration form that passed the checks made here.
    package var registration = RegistrationHooks.Decision.allow(.init())

    package static let none = PreparedPasswords()

    /// Asks `hooks` about `user`, who proved `factor` for `clientID` from `address`, and keeps what they decided.
    package mutating func askFirstFactorHooks(_ hooks: FirstFactorHooks, about user: User, factor: String, clientID: String, address: String?) async {
        firstFactor = await hooks.decide(user: user, clientID: clientID, factor: factor, address: address)
        firstFactorAccount = user.id
    }
}

extension LoginFlow {
    /// Does the password work the submission of `values` with `action` at `state` needs (see ``PreparedPasswords``).
    package func preparePasswords(for state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> PreparedPasswords {
        guard action == .submit else { return .none }
        var prepared = PreparedPasswords.none
        switch state.step {
        case .credentials, .password, .linkAccount:
            let username = state.step == .password ? state.username ?? "" : values["username"]?.text ?? ""
            prepared.signIn = try await authenticator.authenticate(
                username: username, password: values["password"]?.text ?? "", source: source, devices: devices, clientID: state.request.clientID)
            if case .authenticated(let user) = prepared.signIn {
                await prepared.askFirstFactorHooks(firstFactorHooks, about: user, factor: "pwd", clientID: state.request.clientID, address: source.text)
            }
        case .register:
            let password = values["new_password"]?.text ?? ""
            let text = { (key: String) in values[key]?.text.trimmingCharacters(in: .whitespaces).lowercased() ?? "" }
            guard settings.passwords.problem(with: password, username: text("username"), email: text("email")) == nil else { break }
            prepared.newPasswordHash = try await hasher.hash(password)
            // The hooks see only a form the handler's first checks will pass: nobody is asked about a typo.
            if !registrationHooks.targets.isEmpty, (try? AccountInputValidation.validateEmail(text("email"))) != nil,
                (try? AccountInputValidation.validateUsername(text("username"), email: text("email"))) != nil
            {
                prepared.registration = await registrationHooks.decide(
                    username: text("username"), profile: registrationProfile(from: values), clientID: state.request.clientID, address: source.text)
            }
        case .recoveryPassword, .passwordWarning, .passwordExpired:
            let password = values["new_password"]?.text ?? ""
            guard let userID = state.account?.userID, let user = try await users.find(id: userID),
                settings.passwords.problem(with: password, username: user.username, email: user.email) == nil
            else { break }
            prepared.newPasswordIsCurrent = try await hasher.verify(password, against: user.passwordHash)
            if !prepared.newPasswordIsCurrent { prepared.newPasswordHash = try await hasher.hash(password) }
        case .identify, .chooseFactor, .totp, .recoveryCode, .enrollOffer, .enrollTOTP, .recoveryCodes, .emailCode, .smsCode, .voiceCode, .verifyEmail,
            .verifyPhone, .enrollMethod, .enrollPhone, .enrollPhoneCode, .enrollEmail, .enrollEmailCode, .passkey, .enrollPasskey,
            .recoveryIdentify, .recoveryChoose, .resetCode, .unlockCode, .enrollChoose, .appLogin, .linkCode, .consent, .emailSignIn, .emailSignInCode, .push,
            .pushSignIn:
            break
        }
        return prepared
    }
}
