import Foundation
import GatehouseDomain

/// The limits every code check shares, in flows and in device registration alike.
extension IdentityServer {
    /// The counters one guess of a code for `purpose` takes: its subject's (an account, or an address or identifier
    /// before there is one) and the client address's across every subject.
    func codeGuessCounters(_ purpose: OneTimeCodeStore.Purpose, subject: String, source: ClientAddress) -> [AttemptLimiter.Counter] {
        [
            guesses.codeCounter(purpose, subject: subject, limit: configuration.codeGuesses),
            guesses.counter("source", subject: source.subject, limit: configuration.sourceThrottling),
        ]
    }

    /// Logs each block a wrong code started, and tells the account's `owner` of a block on their account by a
    /// security notice (which has a budget of its own at the courier, so codes cannot crowd it out).
    func report(_ settlement: AttemptLimiter.Settlement, of purpose: OneTimeCodeStore.Purpose, to owner: User?) async throws {
        for block in settlement.blocked {
            logger.notice("Too many wrong codes: blocked", metadata: ["limit": "\(block.scope)", "until": "\(block.until)", "user": "\(owner?.id ?? "")"])
            try await audit.record(
                .accountLockedOut, user: owner?.id,
                details: ["factor": "code", "purpose": purpose.rawValue, "limit": "\(block.scope)", "until": "\(block.until)"])
            guard block.scope.hasPrefix("code:"), let owner else { continue }
            try await courier.send(
                .guessesBlocked, code: Self.journeyName(purpose), to: owner.email, on: .email, service: serviceName,
                codeLifetime: block.until - clock.now())
        }
    }

    /// How a security notice names the journey whose codes were guessed.
    static func journeyName(_ purpose: OneTimeCodeStore.Purpose) -> String {
        switch purpose {
        case .secondFactor: "two-step verification codes"
        case .enrollFactor: "codes confirming a new phone number or email address"
        case .recovery: "password reset codes"
        case .unlock: "account unlock codes"
        case .verifyEmail, .verifyPhone: "confirmation codes"
        case .verifyDevice: "device confirmation codes"
        case .linkIdentity: "codes linking another sign-in to the account"
        }
    }
}
