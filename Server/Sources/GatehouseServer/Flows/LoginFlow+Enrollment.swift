import Foundation
import GatehouseProtocol

/// Managing two-step verification outside a sign-in (`POST /flows/enrollment`): the person signs in with the
/// password and any enrolled second factor (asked whatever the client's policy), then sets up or replaces the
/// authenticator app, or makes new recovery codes. The owner is told by email after either change.
extension LoginFlow {
    /// What the enrollment journey can change.
    enum EnrollmentChoice: String, CaseIterable {
        case authenticator = "totp"
        case recoveryCodes = "recovery_codes"

        var label: String {
            switch self {
            case .authenticator: "Set up a new authenticator app (the current one stops working)"
            case .recoveryCodes: "Make new recovery codes (the current ones stop working)"
            }
        }
    }

    /// Signed in for an enrollment journey: offer the choice when TOTP is enrolled, else go straight to enrolling it.
    func beginEnrollment(_ id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        var next = state
        if try await server.authenticators.enrolledFactors(userID: user.id).contains(.totp) {
            next.step = FlowStep.enrollChoose
        } else {
            try startTOTPEnrollment(&next)
        }
        try await server.flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// The node that asks what to change.
    func enrollmentNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode? {
        guard state.step == FlowStep.enrollChoose else { return nil }
        let choice = FlowField(
            key: "setup", kind: .singleChoice, label: "What do you want to change?",
            options: EnrollmentChoice.allCases.map { FieldOption(value: $0.rawValue, label: $0.label) },
            defaultValue: EnrollmentChoice.authenticator.rawValue)
        return FlowNode(
            id: FlowStep.enrollChoose.rawValue, name: "Two-step verification",
            description: "You're signed in as \(state.username ?? "you"). Your account uses an authenticator app and recovery codes.",
            category: .mfaEnrollment, fields: [choice], actions: [FlowAction(id: "submit", kind: .submit, label: "Continue")],
            messages: messages)
    }

    /// A submission on the choice node; `state.account` is set (the node is reached only after signing in).
    func advanceEnrollment(_ id: String, state: FlowStore.LoginState, values: [String: FieldValue]) async throws -> Outcome {
        guard let userID = state.account?.userID, let user = try await server.users.find(id: userID) else {
            _ = try await server.flows.finish(id)
            return .gone
        }
        guard let choice = values["setup"].flatMap({ EnrollmentChoice(rawValue: $0.text) }) else {
            throw OAuthError.invalidRequest("Choose totp or recovery_codes.")
        }
        var next = state
        switch choice {
        case .authenticator:
            try startTOTPEnrollment(&next)
        case .recoveryCodes:
            let codes = try await server.authenticators.replaceRecoveryCodes(userID: user.id, endingSessions: true)
            server.logger.info("Replaced recovery codes", metadata: ["user": "\(user.id)"])
            try await notify(user, .recoveryCodesChanged)
            next.journey = .enrollment(done: true)
            try showRecoveryCodes(codes, in: &next)
        }
        try await server.flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Tells the account's owner about a change to how they sign in, at their verified email address.
    func notify(_ user: User, _ notice: MessageTemplate) async throws {
        guard let address = Self.destination(of: user, on: .email) else { return }
        try await server.courier.send(notice, to: address, on: .email, service: server.serviceName, codeLifetime: 0)
    }
}
