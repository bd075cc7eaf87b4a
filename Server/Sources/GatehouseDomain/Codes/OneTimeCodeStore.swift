import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Codes sent by email or SMS. Each belongs to one flow and one purpose (at most one live code per pair),
/// is stored only as a keyed hash bound to that flow, expires, and tolerates a limited number of guesses,
/// counted in the database so concurrent guesses cannot exceed it. A resend replaces the code but keeps the
/// guesses already spent, and waits longer each time.
package struct OneTimeCodeStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    package let policy: OneTimeCodePolicy
    /// Keys the code hashes, so a copied database alone cannot test guesses.
    package let box: SecretBox

    package static let purpose = "one-time codes v1"

    /// What a code is for; a code for one purpose never answers another.
    package enum Purpose: String, Sendable {
        case secondFactor = "mfa"
        /// Confirms a phone number or an email address being set up as a second factor.
        case enrollFactor = "enroll"
        case verifyEmail = "verify_email"
        case verifyPhone = "verify_phone"
        case recovery
        case unlock
        case verifyDevice = "verify_device"
        /// Proves an account by its address, to link another provider's identity to it.
        case linkIdentity = "link"
        /// Signs in (or registers) with a code sent by email instead of a password.
        case signIn = "sign_in"
    }

    /// What asking for a code found.
    package enum Issue: Sendable, Equatable {
        /// A new code to send.
        case code(String)
        /// The last one was sent too recently; the next may go out in this many seconds.
        case wait(Int64)
        /// Every guess for this step is used up.
        case exhausted
    }

    /// What a guess found.
    package enum Check: Sendable, Equatable {
        case accepted(MessageChannel)
        /// Wrong; this many guesses remain (none: the code is used up, a new one must be sent).
        case rejected(remaining: Int)
        /// Right or wrong, the code's lifetime is over; a new one must be sent.
        case expired
        /// No guesses remained before this one, which was not compared (or no code was sent for this step).
        case exhausted
    }

    /// A fresh code for `flowID` and `purpose`, unless the previous one was sent too recently. `resend` is
    /// whether the person asked again (a first code for a new purpose or channel is never held back).
    package func issue(flowID: String, purpose: Purpose, channel: MessageChannel, resend: Bool) async throws -> Issue {
        let flowHash = TokenDigest.hex(flowID)
        let code = purpose == .verifyDevice ? Self.deviceCode() : SecureRandom.digits(policy.digits)
        let hash = codeHash(Self.canonical(code, for: purpose), flowHash: flowHash, purpose: purpose)
        let now = clock.now()
        let policy = policy
        return try await database.transaction { sql in
            let existing = try await sql.raw(
                """
                SELECT attempts, sends, last_sent_at FROM one_time_codes WHERE flow_hash = \(bind: flowHash) AND purpose = \(bind: purpose.rawValue)
                """
            ).first()
            guard let existing else {
                try await sql.raw(
                    """
                    INSERT INTO one_time_codes (id, flow_hash, purpose, channel, code_hash, attempts, sends, last_sent_at, expires_at)
                    VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: flowHash), \(bind: purpose.rawValue), \(bind: channel.rawValue),
                            \(bind: hash), 0, 1, \(bind: now), \(bind: now + policy.lifetime))
                    """
                ).run()
                return .code(code)
            }
            let attempts = try existing.decode(column: "attempts", as: Int.self)
            let sends = try existing.decode(column: "sends", as: Int.self)
            guard attempts < policy.maxAttempts else { return .exhausted }
            if resend {
                // 30 s, 60 s, 120 s, … after each send (capped at an hour), so a script cannot flood a mailbox.
                let delay = min(policy.resendDelay << Int64(min(sends - 1, 12)), 3600)
                let earliest = try existing.decode(column: "last_sent_at", as: Int64.self) + delay
                if now < earliest { return .wait(earliest - now) }
            }
            try await sql.raw(
                """
                UPDATE one_time_codes SET code_hash = \(bind: hash), channel = \(bind: channel.rawValue), sends = sends + 1,
                    last_sent_at = \(bind: now), expires_at = \(bind: now + policy.lifetime), consumed_at = NULL
                WHERE flow_hash = \(bind: flowHash) AND purpose = \(bind: purpose.rawValue)
                """
            ).run()
            return .code(code)
        }
    }

    /// Checks a guess. The guess is counted before it is compared, in one statement, and a right code is
    /// consumed in another that only one caller can win.
    package func verify(flowID: String, purpose: Purpose, code: String) async throws -> Check {
        let flowHash = TokenDigest.hex(flowID)
        let guess = codeHash(Self.canonical(code, for: purpose), flowHash: flowHash, purpose: purpose)
        let now = clock.now()
        let maxAttempts = policy.maxAttempts
        return try await database.transaction { sql in
            let row = try await sql.raw(
                """
                UPDATE one_time_codes SET attempts = attempts + 1
                WHERE flow_hash = \(bind: flowHash) AND purpose = \(bind: purpose.rawValue) AND consumed_at IS NULL AND attempts < \(bind: maxAttempts)
                RETURNING id, code_hash, channel, attempts, expires_at
                """
            ).first()
            guard let row else { return .exhausted }
            let attempts = try row.decode(column: "attempts", as: Int.self)
            if try row.decode(column: "expires_at", as: Int64.self) <= now { return .expired }
            guard ConstantTime.equals(try row.decode(column: "code_hash", as: String.self), guess) else {
                // Zero remaining: this wrong guess was the code's last (it was compared, so it counts as a wrong guess).
                return .rejected(remaining: maxAttempts - attempts)
            }
            let id = try row.decode(column: "id", as: String.self)
            let consumed =
                try await sql.raw(
                    """
                    UPDATE one_time_codes SET consumed_at = \(bind: now) WHERE id = \(bind: id) AND consumed_at IS NULL RETURNING id
                    """
                ).first() != nil
            guard consumed, let channel = MessageChannel(rawValue: try row.decode(column: "channel", as: String.self)) else { return .exhausted }
            return .accepted(channel)
        }
    }

    /// Device confirmations bind an app to an account without its password, so they are worth more than a sign-in
    /// code: 10 characters of Crockford's base32 (50 bits), shown as two groups of five.
    package static let deviceCodeAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    package static func deviceCode() -> String {
        // 256 is a multiple of 32, so each byte's low five bits pick a character without bias.
        let characters = SecureRandom.bytes(10).map { deviceCodeAlphabet[Int($0 & 31)] }
        return String(characters.prefix(5)) + "-" + String(characters.suffix(5))
    }

    /// The form a code is compared in: digits only for numeric codes; for device codes upper case without
    /// separators, with the letters people confuse with digits read as those digits (O as 0, I and L as 1).
    package static func canonical(_ code: String, for purpose: Purpose) -> String {
        guard purpose == .verifyDevice else { return code.filter(\.isNumber) }
        return String(
            code.uppercased().compactMap { character -> Character? in
                switch character {
                case "O": "0"
                case "I", "L": "1"
                case _ where deviceCodeAlphabet.contains(character): character
                default: nil
                }
            })
    }

    /// HMAC-SHA256 over the flow, the purpose and the code: a code only ever answers the step it was sent for.
    private func codeHash(_ code: String, flowHash: String, purpose: Purpose) -> String {
        let key = SymmetricKey(data: box.derivedBytes("one-time code hashes"))
        return Hex.encode(HMAC<SHA256>.authenticationCode(for: Data("\(flowHash)|\(purpose.rawValue)|\(code)".utf8), using: key))
    }

    package init(database: any Database, clock: UnixClock, policy: OneTimeCodePolicy, box: SecretBox) {
        self.database = database
        self.clock = clock
        self.policy = policy
        self.box = box
    }
}

extension OneTimeCodeStore {
    /// A code keeps a day past expiry for its attempt history.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(table: "one_time_codes", key: "id", condition: "expires_at <= \(bind: now - RetentionRule.day)")
    }
}
