import Foundation
import GatehouseDomain
import GatehouseFoundation
import GatehouseProtocol

/// Every code a flow checks (delivered codes, TOTP, recovery codes) is counted per account (or, before there is an
/// account, per address or identifier as typed) and per client address by the ``AttemptLimiter``, across flows and
/// nodes; the flow's own count (``takeCodeCheck(_:state:)``) only ends one flow early.
extension LoginFlow {
    /// What a checked guess was.
    package enum GuessVerdict: Sendable {
        case correct
        case wrong
        /// Not compared (the code had expired): it gives its place back and says nothing.
        case notCompared
    }

    /// The result of a guess under the limits.
    package enum LimitedGuess<Result: Sendable>: Sendable {
        /// A limit is used up: answer with this outcome, nothing was checked.
        case blocked(Outcome)
        case checked(Result)
    }

    /// The outcome of a guess that was not checked because a limit is used up.
    package static func refusal<Result>(of guess: LimitedGuess<Result>) -> Outcome {
        switch guess {
        case .blocked(let outcome): outcome
        case .checked: .gone
        }
    }

    /// The counter subject of a code for `purpose` in `state`: the account when the flow knows it, else the
    /// address being confirmed or the identifier as typed (counted the same way, so a block says nothing about
    /// whether an account exists).
    package static func guessSubject(for purpose: OneTimeCodeStore.Purpose, state: FlowStore.LoginState) -> String {
        switch purpose {
        case .secondFactor, .enrollFactor:
            "user:" + (state.account?.userID ?? "")
        case .linkIdentity:
            "user:" + (state.federation.candidateID ?? "")
        case .recovery, .unlock:
            state.candidateID.map { "user:" + $0 } ?? "name:" + (state.username ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        case .signIn:
            state.candidateID.map { "user:" + $0 } ?? "email:" + (state.username ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        case .verifyEmail:
            "email:" + (state.pendingRegistration?.profile.email ?? "").lowercased()
        case .verifyPhone:
            "phone:" + (state.pendingRegistration?.profile.phoneNumber ?? "")
        case .verifyDevice:
            // Device registrations are confirmed outside flows (``AuthenticatorController``), per address.
            "email:" + (state.username ?? "").lowercased()
        }
    }

    /// Checks a guess for `purpose` under the account's and the client address's limits; the guess is counted
    /// before `check` runs. The wrong guess that starts a block tells `owner` by a security notice.
    package func limitedGuess<Result: Sendable>(
        _ purpose: OneTimeCodeStore.Purpose, state: FlowStore.LoginState, owner: User?,
        check: () async throws -> (Result, GuessVerdict)
    ) async throws -> LimitedGuess<Result> {
        let ticket: AttemptLimiter.Ticket
        // A browser that signed in to this account before is counted on its own (OWASP's device cookies), so
        // someone guessing the account's codes elsewhere does not keep its owner out.
        let account = state.account?.userID ?? state.candidateID
        let subject = if let device = devices.naming(account) { "device:" + device.nonce } else { Self.guessSubject(for: purpose, state: state) }
        switch try await codeGuesses.admit(purpose, subject: subject, source: source) {
        case .blocked(let until, _):
            let message = FlowMessage(
                level: .error, text: say(LoginMessages.guessesBlocked, ["minutes": "\(codeGuesses.minutesLeft(until: until))"]),
                field: "code", code: "too_many_guesses")
            return .blocked(.retry(node(for: state, messages: [message]), .throttled))
        case .admitted(let admitted):
            ticket = admitted
        }
        let (result, verdict) = try await check()
        let correct =
            switch verdict {
            case .correct, .notCompared: true
            case .wrong: false
            }
        try await codeGuesses.settle(ticket, correct: correct, of: purpose) { owner }
        return .checked(result)
    }
}
