import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Codes sent by email or SMS, for every step that uses one: a second factor, confirming an address at
/// registration, password recovery and unlocking an account.
extension LoginFlow {
    package func deliveredCodeField(digits: Int) -> FlowField {
        FlowField(
            key: "code", kind: .oneTimeCode, label: say("flow.field.code.label"),
            validation: FieldValidation(regex: "[0-9 ]{\(digits),\(digits + 2)}", message: say("flow.field.code.digits", ["digits": "\(digits)"])),
            autocomplete: "one-time-code")
    }

    package var codeField: FlowField { deliveredCodeField(digits: settings.oneTimeCodes.digits) }

    package var resendAction: FlowAction { FlowAction(id: .resend, kind: .submit, label: say("flow.code.resend")) }

    /// Issues a code for this flow and sends it to `destination`; `nil` when it went out, else the outcome to answer
    /// with (asked again too soon: `state`'s node with a message; no guesses left: the flow ends). Without a
    /// destination (the identifier named no account, or the account has no such address) a code is still issued
    /// but goes nowhere, so the answer and every later guess look exactly as they would for a real account.
    /// `link` makes the message's link from the code, for the templates that have one.
    package func sendCode(
        _ id: String, state: FlowStore.LoginState, purpose: OneTimeCodeStore.Purpose, channel: MessageChannel, to destination: String?,
        template: MessageTemplate, resend: Bool, link: (@Sendable (String) -> String)? = nil
    ) async throws -> Outcome? {
        switch try await oneTimeCodes.issue(flowID: id, purpose: purpose, channel: channel, resend: resend) {
        case .exhausted:
            _ = try await flows.finish(id)
            return .failed(say(LoginMessages.tooManyCodes).text)
        case .wait(let seconds):
            let message = FlowMessage(
                level: .error, text: say("flow.code.resend_too_soon", ["seconds": "\(seconds)"]), code: "resend_too_soon")
            return .retry(node(for: state, messages: [message]), .throttled)
        case .code(let code):
            if let destination {
                // Written in the language the account's owner chose, else the page's: only they read it.
                let owner = state.account?.userID ?? state.candidateID ?? state.federation.candidateID
                let recipient: User? = if let owner { try await users.find(id: owner) } else { nil }
                try await courier.send(
                    template, code: code, link: link?(code) ?? "", to: destination, on: channel, service: settings.serviceName,
                    codeLifetime: settings.oneTimeCodes.lifetime, language: courier.language(of: recipient, otherwise: wording.language))
            }
            return nil
        }
    }

    /// The result of checking a delivered code.
    package enum CodeResult: Sendable {
        case accepted(MessageChannel)
        /// The node again (or a failed flow): the code was wrong, expired, or the guesses are used up.
        case refused(Outcome)
    }

    /// Checks a code for `purpose`; wrong guesses count against the code, the flow, the account (or address) and the
    /// client address. `owner` is told when the account's limit is reached.
    package func checkCode(
        _ id: String, state: FlowStore.LoginState, purpose: OneTimeCodeStore.Purpose, code: String, owner: User? = nil
    ) async throws -> CodeResult {
        guard let guess = try await takeCodeCheck(id, state: state) else { return .refused(try await guessesUsedUp(id)) }
        let checked = try await limitedGuess(purpose, state: state, owner: owner) { () async throws -> (OneTimeCodeStore.Check, GuessVerdict) in
            let check = try await oneTimeCodes.verify(flowID: id, purpose: purpose, code: code)
            return switch check {
            case .accepted: (check, .correct)
            case .rejected: (check, .wrong)
            case .expired, .exhausted: (check, .notCompared)
            }
        }
        let check: OneTimeCodeStore.Check
        switch checked {
        case .blocked(let outcome): return .refused(outcome)
        case .checked(let result): check = result
        }
        switch check {
        case .accepted(let channel):
            try await flows.clearCodeChecks(id)
            return .accepted(channel)
        case .rejected(let remaining) where remaining <= 0:
            _ = try await flows.finish(id)
            return .refused(.failed(say(LoginMessages.tooManyCodes).text))
        case .rejected:
            return .refused(try await wrongCode(id, state: state, message: say(LoginMessages.invalidCode), guess: guess))
        case .expired:
            let message = FlowMessage(level: .error, text: say(LoginMessages.expiredCode), field: "code", code: "expired_code")
            return .refused(.retry(node(for: state, messages: [message]), .invalidCode))
        case .exhausted:
            _ = try await flows.finish(id)
            return .refused(.failed(say(LoginMessages.tooManyCodes).text))
        }
    }

    /// Resends the code of the node `state` is at: a new code, the guesses already spent still count.
    package func resend(
        _ id: String, state: FlowStore.LoginState, purpose: OneTimeCodeStore.Purpose, channel: MessageChannel, to destination: String?,
        template: MessageTemplate, link: (@Sendable (String) -> String)? = nil
    ) async throws -> Outcome {
        if let refused = try await sendCode(
            id, state: state, purpose: purpose, channel: channel, to: destination, template: template, resend: true, link: link)
        {
            return refused
        }
        return .next(node(for: state, messages: [FlowMessage(level: .info, text: say("flow.code.sent_again"), code: "code_sent")]))
    }

    /// Where a code went, for the node's text: enough to recognize, not enough to learn anything new.
    package static func masked(_ destination: String, on channel: MessageChannel) -> String {
        switch channel {
        case .email:
            let parts = destination.split(separator: "@", maxSplits: 1)
            guard parts.count == 2 else { return "your email address" }
            return "\(parts[0].prefix(1))•••@\(parts[1])"
        case .sms, .voice:
            return "the number ending in \(destination.suffix(2))"
        }
    }
}
