import Foundation
import GatehouseDomain
import GatehouseFoundation
import Logging

/// Checks a username and password, with attempt limits, constant work for unknown users, lock checks and re-hashing.
package struct PasswordAuthenticator: Sendable {
    package let users: UserStore
    package let hasher: PasswordHasher
    package let limiter: AttemptLimiter
    /// Wrong passwords per account name (or per device cookie), and per client address.
    package let accountLimit: AttemptLimit
    package let sourceLimit: AttemptLimit
    /// A hash of a random password, verified against when the user does not exist so that the answer
    /// takes as long as for a real account.
    package let decoyHash: String
    package let logger: Logger
    /// Where a lock-out is recorded.
    package let audit: AuditLog

    package enum Outcome: Sendable, Equatable {
        case authenticated(User)
        /// Wrong username or password; the caller must not say which.
        case invalidCredentials
        /// Too many failures for this account name (from browsers it has not seen) or from this client address; try later.
        case throttled
        /// The password was right but an operator locked the account.
        case locked
    }

    /// Checks `password` for `username`, from `source`, in a browser or app that presents `devices` (its device
    /// cookie or device tokens).
    ///
    /// Every check is counted before the hash is computed: per account name, and per client address across all
    /// names. A browser or app whose device token names this account is counted per cookie instead of per name, so an
    /// attacker who keeps the name blocked does not keep its owner out. Unknown names are counted exactly like
    /// real ones, so a block says nothing about whether an account exists.
    ///
    /// Every refusal is recorded in the audit trail for `clientID` (the name as typed and why, never the password), and
    /// a lock-out it starts after it.
    package func authenticate(
        username: String, password: String, source: ClientAddress = .unknown, devices: [DeviceCookie.Claim] = [], clientID: String? = nil
    ) async throws -> Outcome {
        let name = username.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !password.isEmpty, password.utf8.count <= 1024 else {
            try await audit.record(.signInFailed, client: clientID, details: ["factor": "password", "reason": "invalid_credentials"])
            return .invalidCredentials
        }
        let user = try await users.find(username: name)
        let typed = typedName(name, naming: user)
        func refused(_ outcome: Outcome, _ reason: String, user: User? = nil) async throws -> Outcome {
            try await audit.record(.signInFailed, user: user?.id, client: clientID, details: typed.merging(["factor": "password", "reason": reason]) { $1 })
            return outcome
        }
        let account: AttemptLimiter.Counter
        if let device = devices.naming(user?.id) {
            account = limiter.counter("password:device", subject: device.nonce, limit: accountLimit)
        } else {
            account = nameCounter(name)
        }
        let ticket: AttemptLimiter.Ticket
        switch try await limiter.admit([account, limiter.counter("source", subject: source.subject, limit: sourceLimit)]) {
        case .blocked(_, let scope):
            logger.notice("Sign-in throttled", metadata: ["limit": "\(scope)", "account": "\(account.subjectHash.prefix(12))"])
            return try await refused(.throttled, "throttled")
        case .admitted(let admitted):
            ticket = admitted
        }
        // An account without a password (made by another identity provider) costs the same hash as an unknown name.
        let match = try await hasher.check(password, against: user.flatMap { $0.hasPassword ? $0.passwordHash : nil } ?? decoyHash)
        guard let user, match != .none else {
            let settled = try await limiter.settle(ticket, correct: false)
            _ = try await refused(.invalidCredentials, "invalid_credentials")
            for block in settled.blocked {
                logger.notice("Too many wrong passwords: blocked", metadata: ["limit": "\(block.scope)", "until": "\(block.until)"])
                try await audit.record(
                    .accountLockedOut, user: user?.id,
                    details: typed.merging(["factor": "password", "limit": "\(block.scope)", "until": "\(block.until)"]) { $1 })
            }
            return .invalidCredentials
        }
        try await limiter.settle(ticket, correct: true)
        if user.isLocked { return try await refused(.locked, "locked", user: user) }
        if hasher.needsRehash(user.passwordHash) || match == .asTyped {
            let upgraded = try await hasher.hash(password)
            try await users.updatePasswordHash(userID: user.id, to: upgraded)
            logger.info("Re-hashed a password with the current parameters", metadata: ["user": "\(user.id)"])
        }
        return .authenticated(user)
    }

    /// Forgets the wrong passwords counted for `username`: its owner proved the account another way (an unlock or
    /// recovery code, a new account), or an operator unlocked it.
    package func forgetFailures(of username: String) async throws {
        try await limiter.clear(nameCounter(username.trimmingCharacters(in: .whitespaces)))
    }

    /// How the audit trail names what was typed as the account name: the username when it names an account; otherwise
    /// only a digest keyed under the server secret (the same for the same name, so attempts on one name can be told
    /// apart from a spray), since what was typed there is sometimes a password typed into the wrong field.
    private func typedName(_ name: String, naming user: User?) -> [String: String] {
        if let user { return ["username": user.username] }
        return ["username_digest": String(nameCounter(name).subjectHash.prefix(16))]
    }

    private func nameCounter(_ name: String) -> AttemptLimiter.Counter {
        Self.nameCounter(name, in: limiter, limit: accountLimit)
    }

    /// The counter of wrong passwords typed for the account name `name`, from browsers that do not know it.
    package static func nameCounter(_ name: String, in limiter: AttemptLimiter, limit: AttemptLimit) -> AttemptLimiter.Counter {
        limiter.counter("password", subject: "name:" + name.lowercased(), limit: limit)
    }

    package init(
        users: UserStore, hasher: PasswordHasher, limiter: AttemptLimiter, accountLimit: AttemptLimit, sourceLimit: AttemptLimit, decoyHash: String,
        logger: Logger, audit: AuditLog
    ) {
        self.users = users
        self.hasher = hasher
        self.limiter = limiter
        self.accountLimit = accountLimit
        self.sourceLimit = sourceLimit
        self.decoyHash = decoyHash
        self.logger = logger
        self.audit = audit
    }
}
