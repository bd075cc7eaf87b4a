import Foundation
import GatehouseDomain
import GatehouseFoundation

/// The pauses wrong guesses put on one account, for an operator to lift (`gatehouse users unlock`): wrong passwords
/// typed for its name, and wrong codes for its second factor, password reset, unlock, email sign-in and linking
/// another provider's identity.
public struct AccountPauses: Sendable {
    let limiter: AttemptLimiter

    /// The pauses kept in `database`, whose counters are keyed with the server's `secret`.
    public init(database: any Database, secret: ServerSecret) {
        limiter = AttemptLimiter(database: database, clock: .system, secret: secret)
    }

    /// Forgets every wrong guess counted against `user`'s account, and so any pause on it. Counts per client
    /// address and per browser stay: they belong to whoever guessed, not to the account.
    public func lift(for user: User) async throws {
        let purposes: [OneTimeCodeStore.Purpose] = [.secondFactor, .recovery, .unlock, .signIn, .linkIdentity]
        // An email sign-in typed as the address is counted under it until the flow knows the account.
        let subjects = ["user:" + user.id, "name:" + user.username.lowercased(), "email:" + user.email.lowercased()]
        var counters = [PasswordAuthenticator.nameCounter(user.username, in: limiter, limit: .passwords)]
        for purpose in purposes {
            counters += subjects.map { limiter.codeCounter(purpose, subject: $0, limit: .codes) }
        }
        for counter in counters { try await limiter.clear(counter) }
    }
}
