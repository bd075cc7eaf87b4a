import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// Counts guesses of secrets (passwords, codes, TOTP, recovery codes) per subject in the database, so a limit
/// holds across flows, journeys started anew and server nodes, and blocks a subject for a growing time once it
/// has used up its wrong guesses (``AttemptLimit``).
///
/// A guess is taken before the secret is looked at (``admit(_:)``), in one conditional statement, so no number
/// of concurrent guesses can get past the limit; once its answer is known it is settled (``settle(_:correct:)``):
/// a right guess gives its place back, a wrong one stays counted and the one that reaches the limit starts a block.
/// A right answer never clears the count, so a correct password does not reset the second factor's failures and
/// a correct code does not erase the wrong ones before it.
package struct AttemptLimiter: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// Keys the subjects' digests, so a copied database does not list which names and addresses were tried.
    package let subjectKey: SymmetricKey

    /// What is counted: one journey for one subject, under its limit.
    package struct Counter: Sendable, Hashable {
        /// The journey (`password`, `code:recovery`, `source`, …).
        package let scope: String
        /// The keyed digest of the subject (an account, an address, a client address).
        package let subjectHash: String
        package let limit: AttemptLimit

        package static func == (lhs: Counter, rhs: Counter) -> Bool { lhs.scope == rhs.scope && lhs.subjectHash == rhs.subjectHash }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(scope)
            hasher.combine(subjectHash)
        }
    }

    /// The answer to asking for a guess.
    package enum Admission: Sendable, Equatable {
        /// The guess may be checked; settle it with its answer.
        case admitted(Ticket)
        /// A counter is blocked until this time (Unix seconds): nothing may be checked.
        case blocked(until: Int64, scope: String)
    }

    /// Guesses taken on counters, waiting for their answer.
    package struct Ticket: Sendable, Equatable {
        package let counters: [Counter]
    }

    /// What settling a wrong guess did.
    package struct Settlement: Sendable, Equatable {
        /// The counters whose limit this guess reached: each is now blocked (the first block of a run, or a longer one).
        package var blocked: [(scope: String, until: Int64)]

        package static func == (lhs: Settlement, rhs: Settlement) -> Bool {
            lhs.blocked.map(\.scope) == rhs.blocked.map(\.scope) && lhs.blocked.map(\.until) == rhs.blocked.map(\.until)
        }
    }

    package init(database: any Database, clock: UnixClock, secret: ServerSecret) {
        self.database = database
        self.clock = clock
        subjectKey = SymmetricKey(data: SecretBox(serverSecret: secret.bytes, purpose: "attempt counters v1").derivedBytes("subject digests"))
    }

    /// The counter of `scope` for `subject` (any text that names it; compared as given).
    package func counter(_ scope: String, subject: String, limit: AttemptLimit) -> Counter {
        let digest = HMAC<SHA256>.authenticationCode(for: Data("\(scope)|\(subject)".utf8), using: subjectKey)
        return Counter(scope: scope, subjectHash: Hex.encode(digest), limit: limit)
    }

    /// Takes one guess on every counter, all or none: `.blocked` when any of them is blocked or has as many guesses
    /// in flight as it has left.
    package func admit(_ counters: [Counter]) async throws -> Admission {
        let now = clock.now()
        return try await database.transaction { sql in
            var taken: [Counter] = []
            for counter in counters {
                let row = try await sql.raw(
                    """
                    INSERT INTO attempt_counters (scope, subject_hash, failures, blocks, last_attempt_at, blocked_until)
                    VALUES (\(bind: counter.scope), \(bind: counter.subjectHash), 1, 0, \(bind: now), 0)
                    ON CONFLICT (scope, subject_hash) DO UPDATE SET
                        failures = CASE WHEN attempt_counters.last_attempt_at <= \(bind: now - counter.limit.window) THEN 1
                                        ELSE attempt_counters.failures + 1 END,
                        blocks = CASE WHEN attempt_counters.last_attempt_at <= \(bind: now - counter.limit.window) THEN 0
                                      ELSE attempt_counters.blocks END,
                        last_attempt_at = CASE WHEN attempt_counters.last_attempt_at > \(bind: now) THEN attempt_counters.last_attempt_at
                                               ELSE \(bind: now) END
                    WHERE attempt_counters.blocked_until <= \(bind: now)
                      AND (attempt_counters.failures < \(bind: counter.limit.maxFailures)
                           OR attempt_counters.last_attempt_at <= \(bind: now - counter.limit.window))
                    RETURNING failures
                    """
                ).first()
                guard row != nil else {
                    // Give back what this call took on the counters before, in the same transaction.
                    for earlier in taken { try await Self.giveBack(earlier, in: sql) }
                    let until =
                        try await sql.raw(
                            """
                            SELECT blocked_until FROM attempt_counters WHERE scope = \(bind: counter.scope) AND subject_hash = \(bind: counter.subjectHash)
                            """
                        ).first()?.decode(column: "blocked_until", as: Int64.self) ?? now
                    // Full of guesses in flight but not blocked yet: wait a moment, as if blocked now.
                    return .blocked(until: max(until, now + 1), scope: counter.scope)
                }
                taken.append(counter)
            }
            return .admitted(Ticket(counters: taken))
        }
    }

    /// Settles the guesses of `ticket`: a right one gives its places back; a wrong one stays counted, and on every
    /// counter whose limit it reached a block begins (twice as long as the last one in a row, up to the limit's longest).
    @discardableResult
    package func settle(_ ticket: Ticket, correct: Bool) async throws -> Settlement {
        let now = clock.now()
        return try await database.transaction { sql in
            var settlement = Settlement(blocked: [])
            for counter in ticket.counters {
                if correct {
                    try await Self.giveBack(counter, in: sql)
                    continue
                }
                guard
                    let row = try await sql.raw(
                        """
                        SELECT failures, blocks FROM attempt_counters WHERE scope = \(bind: counter.scope) AND subject_hash = \(bind: counter.subjectHash)
                        """
                    ).first()
                else { continue }
                let failures = try row.decode(column: "failures", as: Int.self)
                let blocks = try row.decode(column: "blocks", as: Int.self)
                guard failures >= counter.limit.maxFailures else { continue }
                let until = now + counter.limit.cooldown(afterBlocks: blocks)
                // Conditional on what was read, so of two wrong guesses settling at once only one starts the block.
                // The quiet window starts when the block ends, so a long block does not reset the doubling.
                let started =
                    try await sql.raw(
                        """
                        UPDATE attempt_counters SET failures = 0, blocks = blocks + 1, blocked_until = \(bind: until), last_attempt_at = \(bind: until)
                        WHERE scope = \(bind: counter.scope) AND subject_hash = \(bind: counter.subjectHash)
                          AND failures >= \(bind: counter.limit.maxFailures) AND blocks = \(bind: blocks)
                        RETURNING blocked_until
                        """
                    ).first() != nil
                if started { settlement.blocked.append((counter.scope, until)) }
            }
            return settlement
        }
    }

    /// When `counter` is blocked until, or `nil` when it is not blocked now.
    package func blockedUntil(_ counter: Counter) async throws -> Int64? {
        let now = clock.now()
        let until = try await database.read { sql in
            try await sql.raw(
                """
                SELECT blocked_until FROM attempt_counters WHERE scope = \(bind: counter.scope) AND subject_hash = \(bind: counter.subjectHash)
                """
            ).first()?.decode(column: "blocked_until", as: Int64.self)
        }
        guard let until, until > now else { return nil }
        return until
    }

    /// Whole minutes, at least one, from now until a block that lasts `until` ends: what a refusal tells the person.
    package func minutesLeft(until: Int64) -> Int64 {
        max(1, (until - clock.now() + 59) / 60)
    }

    /// Forgets `counter`: an operator unlocked the account, or its owner proved it with a code sent to them.
    package func clear(_ counter: Counter) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM attempt_counters WHERE scope = \(bind: counter.scope) AND subject_hash = \(bind: counter.subjectHash)").run()
        }
    }

    private static func giveBack(_ counter: Counter, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE attempt_counters SET failures = failures - 1
            WHERE scope = \(bind: counter.scope) AND subject_hash = \(bind: counter.subjectHash) AND failures > 0
            """
        ).run()
    }
}

extension AttemptLimiter {
    /// A counter with no attempt for this long is forgotten (its escalation too).
    package static let quietCounterDays: Int64 = 30

    /// A quiet counter that blocks nothing.
    package static func retention(at now: Int64) -> RetentionRule {
        RetentionRule(
            table: "attempt_counters", key: "scope, subject_hash",
            condition: "last_attempt_at <= \(bind: now - quietCounterDays * RetentionRule.day) AND blocked_until <= \(bind: now)")
    }
}
