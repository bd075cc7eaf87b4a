import GatehouseDomain
import GatehouseFoundation
import Logging

/// The limits every check of a code shares, in flows and in device registration alike: each guess is counted on its
/// subject (an account, or an address or identifier before there is one) and on the client address across every
/// subject; the wrong guess that starts a block is logged, audited, and told to the account's owner.
package struct CodeGuesses: Sendable {
    let limiter: AttemptLimiter
    /// Wrong codes per subject (`code_guesses`).
    let perSubject: AttemptLimit
    /// Wrong passwords and codes per client address (`source_throttling`).
    let perSource: AttemptLimit
    let audit: AuditLog
    let courier: Courier
    let clock: UnixClock
    let logger: Logger
    /// How security notices name this server.
    let serviceName: String

    package init(
        limiter: AttemptLimiter, perSubject: AttemptLimit, perSource: AttemptLimit, audit: AuditLog, courier: Courier, clock: UnixClock,
        logger: Logger, serviceName: String
    ) {
        self.limiter = limiter
        self.perSubject = perSubject
        self.perSource = perSource
        self.audit = audit
        self.courier = courier
        self.clock = clock
        self.logger = logger
        self.serviceName = serviceName
    }

    /// Takes a guess of a code for `purpose` on `subject` from `source`, or says until when they are blocked.
    package func admit(_ purpose: OneTimeCodeStore.Purpose, subject: String, source: ClientAddress) async throws -> AttemptLimiter.Admission {
        try await limiter.admit([
            limiter.codeCounter(purpose, subject: subject, limit: perSubject),
            limiter.counter("source", subject: source.subject, limit: perSource),
        ])
    }

    /// Settles an admitted guess; a wrong one that starts a block is reported (``report(_:of:to:)``) to `owner`.
    package func settle(_ ticket: AttemptLimiter.Ticket, correct: Bool, of purpose: OneTimeCodeStore.Purpose, owner: () async throws -> User?) async throws {
        let settled = try await limiter.settle(ticket, correct: correct)
        if !settled.blocked.isEmpty { try await report(settled, of: purpose, to: try await owner()) }
    }

    /// A code checked under the limits outside a flow.
    package enum LimitedCheck: Sendable {
        /// A limit is used up for this many more minutes: nothing was compared.
        case blocked(minutes: Int64)
        case checked(OneTimeCodeStore.Check)
    }

    /// Checks a code outside a flow (a device's confirmation, a new address on the account page) under `subject`'s
    /// and `source`'s limits: the guess is counted before `verify` runs, and settled as wrong only when it was
    /// compared and wrong; `owner` is told of a block it starts.
    package func check(
        _ purpose: OneTimeCodeStore.Purpose, subject: String, source: ClientAddress, owner: () async throws -> User?,
        verify: () async throws -> OneTimeCodeStore.Check
    ) async throws -> LimitedCheck {
        let ticket: AttemptLimiter.Ticket
        switch try await admit(purpose, subject: subject, source: source) {
        case .blocked(let until, _): return .blocked(minutes: minutesLeft(until: until))
        case .admitted(let admitted): ticket = admitted
        }
        let check = try await verify()
        let rejected = if case .rejected = check { true } else { false }
        try await settle(ticket, correct: !rejected, of: purpose, owner: owner)
        return .checked(check)
    }

    /// Whole minutes until `until` (Unix seconds), at least one: what a blocked person is told to wait.
    package func minutesLeft(until: Int64) -> Int64 { limiter.minutesLeft(until: until) }

    /// Logs each block a wrong code started, and tells the account's `owner` of a block on their account by a
    /// security notice (which has a budget of its own at the courier, so codes cannot crowd it out).
    func report(_ settlement: AttemptLimiter.Settlement, of purpose: OneTimeCodeStore.Purpose, to owner: User?) async throws {
        for block in settlement.blocked {
            logger.notice("Too many wrong codes: blocked", metadata: ["limit": "\(block.scope)", "until": "\(block.until)", "user": "\(owner?.id ?? "")"])
            try await audit.record(
                .accountLockedOut, user: owner?.id,
                details: ["factor": "code", "purpose": purpose.rawValue, "limit": "\(block.scope)", "until": "\(block.until)"])
            guard block.scope.hasPrefix("code:"), let owner else { continue }
            let language = courier.language(of: owner)
            try await courier.send(
                .guessesBlocked, code: courier.catalog.text(Self.journeyKey(purpose), in: language), to: owner.email, on: .email, service: serviceName,
                codeLifetime: block.until - clock.now(), language: language)
        }
    }

    /// How a security notice names the journey whose codes were guessed.
    static func journeyKey(_ purpose: OneTimeCodeStore.Purpose) -> String {
        switch purpose {
        case .secondFactor: "journey.second_factor"
        case .enrollFactor: "journey.enroll_factor"
        case .recovery: "journey.recovery"
        case .unlock: "journey.unlock"
        case .verifyEmail, .verifyPhone: "journey.verify"
        case .verifyDevice: "journey.verify_device"
        case .linkIdentity: "journey.link_identity"
        case .signIn: "journey.sign_in"
        }
    }
}
