import GatehouseProtocol

/// The login flow: its nodes, and what each submission leads to. One definition serves both renderings,
/// JSON for apps (``FlowController``) and HTML for browsers (``LoginController``); the steps come
/// from configuration (``LoginSteps``, ``SignOnPolicy``). The second-factor steps are in `LoginFlow+SecondFactor.swift`.
struct LoginFlow: Sendable {
    let server: IdentityServer

    enum NodeID {
        static let credentials = "login.credentials"
        static let identify = "login.identify"
        static let password = "login.password"
        static let chooseFactor = "mfa.choose"
        static let totp = "mfa.totp"
        static let recoveryCode = "mfa.recovery_code"
        static let enrollTOTP = "mfa.enroll.totp"
        static let recoveryCodes = "mfa.enroll.recovery_codes"
    }

    static let usernameField = FlowField(key: "username", kind: .text, label: "Username",
                                         validation: FieldValidation(maxLength: 256, message: "Enter your username."), autocomplete: "username")
    static let passwordField = FlowField(key: "password", kind: .password, label: "Password",
                                         validation: FieldValidation(maxLength: 1024, message: "The password is too long."),
                                         autocomplete: "current-password")

    /// Starts a flow for a validated authorization request; returns its id and first node.
    func begin(_ request: AuthorizationRequest, clientName: String, owner: FlowStore.Owner) async throws -> (id: String, node: FlowNode) {
        let first = server.configuration.loginSteps == .identifyFirst ? NodeID.identify : NodeID.credentials
        let state = FlowStore.LoginState(request: request, nodeID: first, username: request.loginHint, clientName: clientName)
        let id = try await server.flows.create(state, owner: owner, lifetime: server.configuration.tokens.authorizationRequest)
        return (id, node(for: state))
    }

    /// The node `state` is at, with `messages`.
    func node(for state: FlowStore.LoginState, messages: [FlowMessage] = []) -> FlowNode {
        if let node = secondFactorNode(for: state, messages: messages) { return node }
        let clientName = state.clientName ?? state.request.clientID
        var usernameField = Self.usernameField
        usernameField.defaultValue = state.username
        let submit = { (label: String) in [FlowAction(id: "submit", kind: .submit, label: label)] }
        switch state.nodeID {
        case NodeID.identify:
            return FlowNode(id: NodeID.identify, name: "Sign in", description: "Enter your username to continue to \(clientName).",
                            category: "sign_in", fields: [usernameField], actions: submit("Next"), messages: messages)
        case NodeID.password:
            return FlowNode(id: NodeID.password, name: "Enter your password", description: "Signing in as \(state.username ?? "") to \(clientName).",
                            category: "sign_in", fields: [Self.passwordField], actions: submit("Sign in"), messages: messages)
        default:
            return FlowNode(id: NodeID.credentials, name: "Sign in", description: "Sign in to continue to \(clientName).", category: "sign_in",
                            fields: [usernameField, Self.passwordField], actions: submit("Sign in"), messages: messages)
        }
    }

    /// Why a node is shown again; the hosted page answers each with its own HTTP status.
    enum Problem: Sendable, Equatable {
        case invalidInput, invalidCredentials, invalidCode, throttled, locked
    }

    /// Where a submission led.
    enum Outcome: Sendable {
        /// The next node.
        case next(FlowNode)
        /// The same node again, with messages saying what to fix.
        case retry(FlowNode, Problem)
        /// Signed in: the flow is finished and can never be submitted again.
        case authenticated(User, FlowStore.LoginState)
        /// The flow expired, or another submission finished it first.
        case gone
        /// The flow cannot go on (too many wrong codes) and has ended; the user starts again.
        case failed(String)
    }

    /// Applies a submission of `values` with `action` to the flow `id`, which is at `state`.
    func advance(_ id: String, state: FlowStore.LoginState, action: String, values: [String: FieldValue]) async throws -> Outcome {
        let current = node(for: state)
        guard current.actions.contains(where: { $0.id == action }) else {
            throw OAuthError.invalidRequest("The node \(current.id) has no action \(action).")
        }
        let problems = action == current.primaryAction?.id ? current.problems(in: values) : []
        guard problems.isEmpty else {
            var retried = state
            if [NodeID.identify, NodeID.credentials].contains(state.nodeID) { retried.username = values["username"]?.text }
            return .retry(node(for: retried, messages: problems), .invalidInput)
        }
        if state.userID != nil { return try await advanceSecondFactor(id, state: state, action: action, values: values) }
        if state.nodeID == NodeID.identify {
            // Always go on to the password, whether the account exists or not: no enumeration.
            var next = state
            next.nodeID = NodeID.password
            next.username = values["username"]?.text
            try await server.flows.update(id, to: next)
            return .next(node(for: next))
        }
        var attempt = state
        if state.nodeID != NodeID.password { attempt.username = values["username"]?.text ?? "" }
        func again(_ text: String, _ problem: Problem, code: String) -> Outcome {
            .retry(node(for: attempt, messages: [FlowMessage(level: .error, text: text, code: code)]), problem)
        }
        switch try await server.authenticator.authenticate(username: attempt.username ?? "", password: values["password"]?.text ?? "") {
        case .invalidCredentials: return again(LoginMessages.invalidCredentials, .invalidCredentials, code: "invalid_credentials")
        case .throttled: return again(LoginMessages.throttled, .throttled, code: "throttled")
        case .locked: return again(LoginMessages.locked, .locked, code: "locked")
        case .authenticated(let user):
            return try await afterPassword(id, state: attempt, user: user)
        }
    }

    /// Ends the flow for `user`; only one submission can.
    func complete(_ id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        guard try await server.flows.finish(id) else { return .gone }
        return .authenticated(user, state)
    }
}

/// The words the sign-in steps use, the same in the app and on the hosted page.
enum LoginMessages {
    static let invalidCredentials = "The username or password is incorrect."
    static let throttled = "Too many failed attempts. Wait a few minutes, then try again."
    static let locked = "This account is locked. Contact your administrator."
    static let invalidCode = "The code is incorrect."
    static let replayedCode = "That code was already used. Wait for your app to show the next one."
    static let tooManyCodes = "Too many wrong codes. Start signing in again."
    static let expired = "This sign-in has expired or does not exist. Start again."
    static let hostedExpired = "This sign-in page has expired or was opened in another browser. Go back to the application and start again."
}
