import GatehouseProtocol

/// Routes between the journeys one flow can take: from the sign-in node to registration or recovery (links),
/// to unlocking a locked-out account, and to the password nodes before a flow finishes.
extension LoginFlow {
    /// The registration, recovery, unlock, password or enrollment node `state` is at, or `nil` for the sign-in nodes.
    func accountNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode? {
        passwordNode(for: state, messages: messages) ?? registrationNode(for: state, messages: messages) ?? recoveryNode(for: state, messages: messages)
            ?? enrollmentNode(for: state, messages: messages) ?? appLoginNode(for: state, messages: messages)
    }

    /// A submission on a registration, recovery, unlock, password or enrollment node; `nil` for the other nodes.
    func advanceAccount(_ id: String, state: FlowStore.LoginState, action: String, values: [String: FieldValue]) async throws -> Outcome? {
        switch state.nodeID {
        case NodeID.passwordExpired, NodeID.passwordWarning, NodeID.recoveryPassword:
            try await advancePassword(id, state: state, action: action, values: values)
        case NodeID.register, NodeID.verifyEmail, NodeID.verifyPhone:
            try await advanceRegistration(id, state: state, action: action, values: values)
        case NodeID.recoveryIdentify, NodeID.recoveryChoose, NodeID.resetCode, NodeID.unlockCode:
            try await advanceRecovery(id, state: state, action: action, values: values)
        case NodeID.enrollChoose:
            try await advanceEnrollment(id, state: state, values: values)
        case NodeID.appLogin:
            try await advanceAppLogin(id, state: state, action: action)
        default:
            nil
        }
    }

    /// The sign-in node's other actions: "Forgot your password?", "Create an account", and unlocking.
    func switchJourney(_ id: String, state: FlowStore.LoginState, action: String) async throws -> Outcome? {
        var next = state
        switch action {
        case "recover":
            next.journey = .recovery
            next.nodeID = NodeID.recoveryIdentify
            next.lockedOut = nil
        case "register":
            next.journey = .registration
            next.nodeID = NodeID.register
            next.username = nil
        case "unlock":
            return try await startUnlock(id, state: state)
        case Self.appLoginAction.id where state.journey == nil:
            return try await startAppLogin(id, state: state)
        default:
            return nil
        }
        try await server.flows.update(id, to: next)
        return .next(node(for: next))
    }
}
