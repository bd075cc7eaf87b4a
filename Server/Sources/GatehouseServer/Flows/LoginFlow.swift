import GatehouseProtocol

/// The login flow: its nodes, and what each submission leads to. One definition serves the native JSON API;
/// the steps come from configuration (``LoginSteps``).
struct LoginFlow: Sendable {
    let server: IdentityServer

    enum NodeID {
        static let credentials = "login.credentials"
        static let identify = "login.identify"
        static let password = "login.password"
    }

    static let usernameField = FlowField(key: "username", kind: .text, label: "Username",
                                         validation: FieldValidation(maxLength: 256, message: "Enter your username."), autocomplete: "username")
    static let passwordField = FlowField(key: "password", kind: .password, label: "Password",
                                         validation: FieldValidation(maxLength: 1024, message: "The password is too long."),
                                         autocomplete: "current-password")

    var firstNodeID: String {
        server.configuration.loginSteps == .identifyFirst ? NodeID.identify : NodeID.credentials
    }

    func node(_ id: String, clientName: String, username: String? = nil, messages: [FlowMessage] = []) -> FlowNode {
        var usernameField = Self.usernameField
        usernameField.defaultValue = username
        switch id {
        case NodeID.identify:
            return FlowNode(id: id, name: "Sign in", description: "Enter your username to continue to \(clientName).", category: "sign_in",
                            fields: [usernameField], actions: [FlowAction(id: "submit", kind: .submit, label: "Next")], messages: messages)
        case NodeID.password:
            return FlowNode(id: id, name: "Enter your password", description: "Signing in as \(username ?? "") to \(clientName).",
                            category: "sign_in", fields: [Self.passwordField],
                            actions: [FlowAction(id: "submit", kind: .submit, label: "Sign in")], messages: messages)
        default:
            return FlowNode(id: NodeID.credentials, name: "Sign in", description: "Sign in to continue to \(clientName).", category: "sign_in",
                            fields: [usernameField, Self.passwordField],
                            actions: [FlowAction(id: "submit", kind: .submit, label: "Sign in")], messages: messages)
        }
    }

    /// Where a submission leads.
    enum Step: Sendable, Equatable {
        /// Go on to `nodeID`, remembering `username`.
        case next(nodeID: String, username: String?)
        /// Show the same node again with `messages`.
        case retry([FlowMessage])
        /// Signed in.
        case authenticated(User)
    }

    func submit(_ values: [String: String], at state: FlowStore.LoginState) async throws -> Step {
        let current = node(state.nodeID, clientName: "", username: state.username)
        let problems = FieldValidator.problems(in: values, for: current)
        guard problems.isEmpty else { return .retry(problems) }
        if state.nodeID == NodeID.identify {
            // Always go on to the password, whether the account exists or not: no enumeration.
            return .next(nodeID: NodeID.password, username: values["username"])
        }
        let username = state.nodeID == NodeID.password ? (state.username ?? "") : (values["username"] ?? "")
        switch try await server.authenticator.authenticate(username: username, password: values["password"] ?? "") {
        case .authenticated(let user): return .authenticated(user)
        case .invalidCredentials: return .retry([FlowMessage(level: .error, text: LoginMessages.invalidCredentials)])
        case .throttled: return .retry([FlowMessage(level: .error, text: LoginMessages.throttled)])
        case .locked: return .retry([FlowMessage(level: .error, text: LoginMessages.locked)])
        }
    }
}

/// The words the sign-in steps use, the same in the app and on the hosted page.
enum LoginMessages {
    static let invalidCredentials = "The username or password is incorrect."
    static let throttled = "Too many failed attempts. Wait a few minutes, then try again."
    static let locked = "This account is locked. Contact your administrator."
    static let expired = "This sign-in has expired. Start again."
}
