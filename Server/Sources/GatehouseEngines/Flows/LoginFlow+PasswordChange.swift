import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Setting a new password inside a flow: after a recovery code, and when the password has expired (a forced
/// change) or will soon (a change the user may skip).
extension LoginFlow {
    /// The field for a new password, with the policy's length rules.
    package var newPasswordField: FlowField {
        let policy = settings.passwords
        return FlowField(
            key: "new_password", kind: .password, label: say("flow.field.new_password.label"),
            validation: FieldValidation(
                minLength: policy.minLength, maxLength: policy.maxLength,
                message: say("flow.field.new_password.length", ["min": "\(policy.minLength)", "max": "\(policy.maxLength)"])),
            autocomplete: "new-password")
    }

    /// The password node a finishing flow must pass first, if any.
    package func passwordStep(for state: FlowStore.LoginState, user: User) -> FlowStep? {
        if case .recovery = state.journey { return FlowStep.recoveryPassword }
        // An operator asked for a new password (`gatehouse users require-password-change`).
        if user.passwordChangedAt == 0 { return FlowStep.passwordExpired }
        guard let maxAge = settings.passwords.maxAge else { return nil }
        let age = clock.now() - user.passwordChangedAt
        if age >= maxAge { return FlowStep.passwordExpired }
        if age >= maxAge - Int64(settings.passwords.warningDays) * 86_400 { return FlowStep.passwordWarning }
        return nil
    }

    /// The password nodes.
    package func passwordNode(_ step: StepFamily.Password, for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let change = FlowAction(id: .submit, kind: .submit, label: say("flow.password_change.submit"))
        switch step {
        case .passwordExpired:
            return FlowNode(
                id: FlowStep.passwordExpired.rawValue, name: say("flow.password_change.expired.name"),
                description: say("flow.password_change.expired.description"),
                category: .passwordExpired, fields: [newPasswordField], actions: [change], messages: messages)
        case .passwordWarning:
            return FlowNode(
                id: FlowStep.passwordWarning.rawValue, name: say("flow.password_change.warning.name"),
                description: say("flow.password_change.warning.description"),
                category: .passwordWarning, fields: [newPasswordField],
                actions: [change, FlowAction(id: .skip, kind: .submit, label: say("flow.not_now"))], messages: messages)
        case .recoveryPassword:
            return FlowNode(
                id: FlowStep.recoveryPassword.rawValue, name: say("flow.password_change.recovery.name"),
                description: say("flow.password_change.recovery.description", ["account": state.username ?? ""]),
                category: .recovery, fields: [newPasswordField], actions: [change], messages: messages)
        }
    }

    /// A submission on a password node; `state.account` is set.
    package func advancePassword(_ id: String, state: FlowStore.LoginState, action: FlowActionID, values: [String: FieldValue]) async throws -> Outcome {
        guard let userID = state.account?.userID, let user = try await users.find(id: userID) else {
            _ = try await flows.finish(id)
            return .gone
        }
        var next = state
        if action == .skip, state.step == FlowStep.passwordWarning {
            next.account?.passwordSettled = true
            return try await complete(id, state: next, user: user)
        }
        let password = values["new_password"]?.text ?? ""
        func again(_ text: Phrase) -> Outcome {
            .retry(node(for: state, messages: [FlowMessage(level: .error, text: text, field: "new_password", code: "invalid_password")]), .invalidInput)
        }
        if let problem = settings.passwords.passwordProblem(with: password, username: user.username, email: user.email) {
            return again(say(problem.key, problem.arguments))
        }
        if passwords.newPasswordIsCurrent { return again(say("flow.password_change.same")) }
        guard let hash = passwords.newPasswordHash else { throw FlowEngineError.passwordNotPrepared }
        try await users.changePassword(userID: user.id, to: hash)
        logger.info("Password changed in a flow", metadata: ["user": "\(user.id)", "node": "\(state.step)"])
        let reset = if case .recovery = state.journey { true } else { false }
        try await audit.record(reset ? .passwordReset : .passwordChanged, user: user.id, client: state.request.clientID)
        next.account?.passwordSettled = true
        return try await complete(id, state: next, user: user)
    }
}
