import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Routes between the journeys one flow can take: from the sign-in node to registration or recovery (links),
/// to unlocking a locked-out account, and to signing in with the app.
extension LoginFlow {
    /// The sign-in node's other actions: "Forgot your password?", "Create an account", and unlocking.
    package func switchJourney(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue] = [:]) async throws -> Outcome? {
        var next = state
        switch action {
        case .recover:
            next.journey = Journey(.recovery)
            next.step = FlowStep.recoveryIdentify
            next.lockedOut = false
        case .register:
            next.journey = Journey(.registration)
            next.step = FlowStep.register
            next.username = nil
        case .unlock:
            return try await startUnlock(id, state: state)
        case .app:
            guard case .signIn = state.journey else { return nil }
            return try await startAppLogin(id, state: state)
        case .pushSignIn:
            guard case .signIn = state.journey, settings.signOnPolicy(for: state.request.clientID).pushSignIn else { return nil }
            return try await startPushSignIn(id, state: state, typed: values["username"]?.text)
        default:
            return nil
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }
}
