import Foundation
import Logging

/// Checks a username and password, with throttling, constant work for unknown users, lock checks and re-hashing.
struct PasswordAuthenticator: Sendable {
    let users: UserStore
    let hasher: PasswordHasher
    let throttle: LoginThrottle
    /// A hash of a random password, verified against when the user does not exist so that the answer
    /// takes as long as for a real account.
    let decoyHash: String
    let logger: Logger

    enum Outcome: Sendable, Equatable {
        case authenticated(User)
        /// Wrong username or password; the caller must not say which.
        case invalidCredentials
        /// Too many failures for this account name; try later.
        case throttled
        /// The password was right but an operator locked the account.
        case locked
    }

    func authenticate(username: String, password: String) async throws -> Outcome {
        let name = username.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !password.isEmpty, password.utf8.count <= 1024 else { return .invalidCredentials }
        if try await throttle.isBlocked(name) {
            logger.notice("Sign-in throttled", metadata: ["account": "\(LoginThrottle.key(name).prefix(12))"])
            return .throttled
        }
        let user = try await users.find(username: name)
        let matches = try await hasher.verify(password, against: user?.passwordHash ?? decoyHash)
        guard let user, matches else {
            try await throttle.recordFailure(name)
            return .invalidCredentials
        }
        try await throttle.recordSuccess(name)
        if user.isLocked { return .locked }
        if hasher.needsRehash(user.passwordHash) {
            let upgraded = try await hasher.hash(password)
            try await users.updatePasswordHash(userID: user.id, to: upgraded)
            logger.info("Re-hashed a password with the current parameters", metadata: ["user": "\(user.id)"])
        }
        return .authenticated(user)
    }
}
