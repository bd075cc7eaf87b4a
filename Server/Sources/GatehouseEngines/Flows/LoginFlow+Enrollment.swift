import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Managing two-step verification outside a sign-in (`POST /flows/enrollment`): the person signs in with the
/// password and any enrolled second factor (asked whatever the client's policy), then sets up or replaces the
/// authenticator app, sets up or changes the phone number, adds the email address, or makes new recovery codes
/// (the factors the client's policy lets people set up). The owner is told by email after a replacement.
extension LoginFlow {
    /// What the enrollment journey can change.
    package enum EnrollmentChoice: String, CaseIterable {
        case passkey
        case authenticator = "totp"
        case phone
        case email
        case recoveryCodes = "recovery_codes"

        /// The factor it sets up, for all but new recovery codes.
        package var factor: EnrollableFactor? {
            switch self {
            case .passkey: .passkey
            case .authenticator: .totp
            case .phone: .phone
            case .email: .email
            case .recoveryCodes: nil
            }
        }

        /// How the choice reads for an account that has `enrolled` these factors.
        package func labelKey(enrolled: [SecondFactor]) -> String {
            switch self {
            case .passkey: enrolled.contains(.passkey) ? "flow.enrollment.passkey.another" : "flow.enrollment.passkey.first"
            case .authenticator: enrolled.contains(.totp) ? "flow.enrollment.totp.replace" : "flow.enrollment.totp.first"
            case .phone: enrolled.contains(where: \.usesPhone) ? "flow.enrollment.phone.change" : "flow.enrollment.phone.first"
            case .email: "flow.enrollment.email"
            case .recoveryCodes: "flow.enrollment.recovery_codes"
            }
        }
    }

    /// What the journey offers an account that has `enrolled` these factors: the factors the policy lets people set
    /// up (the email address only until it is enrolled), and new recovery codes when an authenticator app is set up.
    package func enrollmentChoices(for state: FlowStore.LoginState, enrolled: [SecondFactor]) -> [EnrollmentChoice] {
        let offered = offeredFactors(for: state)
        return EnrollmentChoice.allCases.filter { choice in
            switch choice {
            case .passkey: offered.contains(.passkey)
            case .authenticator: offered.contains(.totp)
            case .phone: offered.contains(.phone)
            case .email: offered.contains(.email) && !enrolled.contains(.email)
            case .recoveryCodes: enrolled.contains(.totp)
            }
        }
    }

    /// Signed in for an enrollment journey: offer the choice, or go straight to the only thing there is to set up.
    package func beginEnrollment(_ id: String, state: FlowStore.LoginState, user: User) async throws -> Outcome {
        var next = state
        let enrolled = try await authenticators.enrolledFactors(userID: user.id)
        // Kept for the choice node's labels.
        next.secondFactor.factors = enrolled
        let choices = enrollmentChoices(for: state, enrolled: enrolled)
        if choices.count == 1, let only = choices[0].factor {
            if let refused = try await startEnrolling(only, id: id, state: &next, user: user) { return refused }
        } else {
            next.step = FlowStep.enrollChoose
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// The node that asks what to change.
    package func enrollmentNode(for state: FlowStore.LoginState, messages: [FlowMessage]) -> FlowNode {
        let enrolled = state.secondFactor.factors
        let choices = enrollmentChoices(for: state, enrolled: enrolled)
        let choice = FlowField(
            key: "setup", kind: .singleChoice, label: say("flow.enrollment.field"),
            options: choices.map { FieldOption(value: $0.rawValue, label: say($0.labelKey(enrolled: enrolled))) },
            defaultValue: choices.first?.rawValue)
        let has = [
            enrolled.contains(.totp) ? say("flow.enrollment.has.totp").text : nil,
            enrolled.contains(where: \.usesPhone) ? say("flow.enrollment.has.phone").text : nil,
            enrolled.contains(.email) ? say("flow.enrollment.has.email").text : nil,
        ].compactMap { $0 }
        let username = state.username ?? ""
        let description =
            has.isEmpty
            ? say("flow.enrollment.description.none", ["username": username])
            : say("flow.enrollment.description.default", ["username": username, "methods": has.joined(separator: say("list.separator").text)])
        return FlowNode(
            id: FlowStep.enrollChoose.rawValue, name: say("flow.enrollment.name"), description: description,
            category: .mfaEnrollment, fields: [choice], actions: [FlowAction(id: .submit, kind: .submit, label: say("flow.continue"))],
            messages: messages)
    }

    /// A submission on the choice node; `state.account` is set (the node is reached only after signing in).
    package func advanceEnrollment(_ id: String, state: FlowStore.LoginState, values: [String: FieldValue]) async throws -> Outcome {
        guard let userID = state.account?.userID, let user = try await users.find(id: userID) else {
            _ = try await flows.finish(id)
            return .gone
        }
        let choices = enrollmentChoices(for: state, enrolled: state.secondFactor.factors)
        guard let choice = values["setup"].flatMap({ EnrollmentChoice(rawValue: $0.text) }), choices.contains(choice) else {
            throw OAuthError.invalidRequest("Choose one of \(choices.map(\.rawValue).joined(separator: ", ")).")
        }
        var next = state
        if let factor = choice.factor {
            if let refused = try await startEnrolling(factor, id: id, state: &next, user: user) { return refused }
        } else {
            let codes = try await authenticators.replaceRecoveryCodes(userID: user.id, endingSessions: true)
            logger.info("Replaced recovery codes", metadata: ["user": "\(user.id)"])
            try await audit.record(.factorEnrolled, user: user.id, client: state.request.clientID, details: ["factor": "recovery_codes"])
            try await notify(user, .recoveryCodesChanged)
            next.journey = .enrollment(done: true)
            try showRecoveryCodes(codes, in: &next)
        }
        try await flows.update(id, to: next)
        return .next(node(for: next))
    }

    /// Tells the account's owner about a change to how they sign in, at their verified email address.
    package func notify(_ user: User, _ notice: MessageTemplate) async throws {
        guard let address = Self.destination(of: user, on: .email) else { return }
        try await courier.send(
            notice, to: address, on: .email, service: settings.serviceName, codeLifetime: 0, language: courier.language(of: user, otherwise: wording.language))
    }
}
