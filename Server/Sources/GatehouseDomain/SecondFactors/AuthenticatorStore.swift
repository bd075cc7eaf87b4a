import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol
import SQLKit

/// A user's enrolled second factors. TOTP secrets are sealed under the server secret (the server must read
/// them to check a code); recovery codes are kept only as keyed hashes.
package struct AuthenticatorStore: Sendable {
    package let database: any Database
    package let clock: UnixClock
    /// Seals TOTP secrets, and keys the recovery-code hashes so a copied database alone cannot test guesses.
    package let box: SecretBox

    package static let purpose = "second factors v1"
    /// Recovery codes handed out at a time.
    package static let recoveryCodeCount = 10

    /// What a code check found.
    package enum CodeCheck: Sendable, Equatable {
        case accepted
        /// Wrong, or outside the clock-skew window.
        case rejected
        /// Right, but that time step's code was already used: a TOTP code counts once.
        case replayed
    }

    /// The second factors `userID` enrolled: passkeys, pushes to a registered authenticator app, the authenticator
    /// (TOTP) app and its unused recovery codes, a phone number (both ways of getting its codes, the one chosen at
    /// enrollment first) and the email address.
    package func enrolledFactors(userID: String) async throws -> [SecondFactor] {
        try await database.read { sql in
            // One round trip for the authenticators and whether any passkey exists (its own table).
            let rows = try await sql.raw(
                """
                SELECT kind, parameters FROM authenticators WHERE user_id = \(bind: userID)
                UNION ALL SELECT 'passkey', '' WHERE EXISTS (SELECT 1 FROM passkeys WHERE user_id = \(bind: userID))
                UNION ALL SELECT 'push', '' WHERE EXISTS (
                    SELECT 1 FROM device_identities WHERE user_id = \(bind: userID) AND state = 'registered' AND push_token IS NOT NULL)
                """
            ).all()
            var factors: [SecondFactor] = []
            var totp = false
            var passkey = false
            var push = false
            for row in rows {
                switch try row.decode(column: "kind", as: String.self) {
                case "passkey":
                    passkey = true
                case "push":
                    push = true
                case Kind.totp:
                    totp = true
                case Kind.phone:
                    let parameters = try JSONDecoder().decode(PhoneParameters.self, from: Data(try row.decode(column: "parameters", as: String.self).utf8))
                    factors += parameters.method == .voice ? [.voice, .sms] : [.sms, .voice]
                case Kind.email:
                    factors.append(.email)
                default:
                    continue
                }
            }
            let first: [SecondFactor] = (passkey ? [.passkey] : []) + (push ? [.push] : [])
            guard totp else { return first + factors }
            let recovery = try await sql.raw("SELECT code_hash FROM recovery_codes WHERE user_id = \(bind: userID) AND used_at IS NULL").first() != nil
            return first + [.totp] + factors + (recovery ? [.recoveryCode] : [])
        }
    }

    /// What enrolling a phone number replaced.
    package struct PhoneChange: Sendable, Equatable {
        /// The verified number the account had before, when it was a different one: it is told of the change.
        package var previousNumber: String?
        /// A phone number was enrolled before: the account is signed out everywhere, as when an authenticator app is replaced.
        package var replaced: Bool
    }

    /// Makes `number` (E.164, just confirmed by a code on `method`) the account's verified phone number and enrolls it
    /// as a second factor whose codes go by `method` first. Replacing an enrolled number signs the account out
    /// everywhere in the same transaction, so whoever held the old phone keeps no session.
    package func enrollPhone(userID: String, number: String, method: MessageChannel) async throws -> PhoneChange {
        let now = clock.now()
        let parameters = String(decoding: try JSONEncoder().encode(PhoneParameters(method: method)), as: UTF8.self)
        return try await database.transaction { sql in
            let user = try await UserStore.find(id: userID, in: sql)
            let replaced =
                try await sql.raw("DELETE FROM authenticators WHERE user_id = \(bind: userID) AND kind = \(bind: Kind.phone) RETURNING id").first() != nil
            if replaced { try await UserStore.endEverything(for: userID, at: now, in: sql) }
            try await sql.raw(
                "UPDATE users SET phone_number = \(bind: number), phone_verified = 1, updated_at = \(bind: now) WHERE id = \(bind: userID)"
            ).run()
            try await insert(kind: Kind.phone, userID: userID, parameters: parameters, at: now, in: sql)
            let previous = user.flatMap { $0.phoneVerified && $0.phoneNumber != number ? $0.phoneNumber : nil }
            return PhoneChange(previousNumber: previous, replaced: replaced)
        }
    }

    /// Makes `address` (just confirmed by a code) the account's verified email address and enrolls it as a second
    /// factor. Returns the verified address it replaces, if any, to be told of the change. Throws a duplicate
    /// ``DatabaseError`` when another account has the address.
    package func enrollEmail(userID: String, address: String) async throws -> String? {
        let now = clock.now()
        return try await database.transaction { sql in
            let taken = try await sql.raw("SELECT id FROM users WHERE email = \(bind: address) AND id <> \(bind: userID)").first()
            if taken != nil { throw DatabaseError.duplicate("A user with the email \(address)") }
            let user = try await UserStore.find(id: userID, in: sql)
            try await sql.raw(
                "UPDATE users SET email = \(bind: address), email_verified = 1, updated_at = \(bind: now) WHERE id = \(bind: userID)"
            ).run()
            try await sql.raw("DELETE FROM authenticators WHERE user_id = \(bind: userID) AND kind = \(bind: Kind.email)").run()
            try await insert(kind: Kind.email, userID: userID, parameters: "{}", at: now, in: sql)
            return user.flatMap { $0.emailVerified && $0.email != address ? $0.email : nil }
        }
    }

    /// A row of `authenticators` with no secret (a phone number or an email address: the secret is the code sent to it).
    private func insert(kind: String, userID: String, parameters: String, at now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO authenticators (id, user_id, kind, sealed_secret, parameters, last_used_step, created_at)
            VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: userID), \(bind: kind), '', \(bind: parameters), 0, \(bind: now))
            """
        ).run()
    }

    /// The kinds of `authenticators` rows.
    private enum Kind {
        static let totp = "totp"
        static let phone = "phone"
        static let email = "email"
    }

    /// What is stored beside an enrolled phone number (the number itself is the account's `phone_number`).
    private struct PhoneParameters: Codable {
        /// How its codes are sent unless the person asks for the other way.
        var method: MessageChannel
    }

    /// A new random TOTP generator (160-bit secret, as RFC 4226 recommends), not yet stored.
    package static func newTOTP() -> OneTimePassword {
        OneTimePassword(secret: SecureRandom.bytes(20))
    }

    /// Stores a confirmed TOTP enrollment; `usedStep` is the step whose code confirmed it, so that code cannot sign in.
    /// `replacing` removes the user's earlier TOTP enrollments in the same transaction (a new phone: the old
    /// app's codes stop working the moment the new one is confirmed) and signs the account out everywhere, so
    /// whoever held the old factor keeps no session; the flow doing the replacing starts the one that remains.
    package func addTOTP(userID: String, _ generator: OneTimePassword, usedStep: Int64, replacing: Bool = false) async throws {
        let sealed = try box.seal(Data(generator.secret))
        let parameters = String(decoding: try JSONEncoder().encode(TOTPParameters(generator)), as: UTF8.self)
        let now = clock.now()
        try await database.transaction { sql in
            if replacing {
                try await sql.raw("DELETE FROM authenticators WHERE user_id = \(bind: userID) AND kind = 'totp'").run()
                try await UserStore.endEverything(for: userID, at: now, in: sql)
            }
            try await sql.raw(
                """
                INSERT INTO authenticators (id, user_id, kind, sealed_secret, parameters, last_used_step, created_at)
                VALUES (\(bind: UUID().uuidString.lowercased()), \(bind: userID), 'totp', \(bind: sealed), \(bind: parameters),
                        \(bind: usedStep), \(bind: now))
                """
            ).run()
        }
    }

    /// Checks a TOTP code against the user's enrollments, one step of clock skew either way. An accepted code
    /// moves the enrollment's last used step forward in the same statement, so a code is accepted at most once
    /// even when submitted twice at the same moment.
    package func verifyTOTP(userID: String, code: String) async throws -> CodeCheck {
        let rows = try await database.read { sql in
            try await sql.raw("SELECT id, sealed_secret, parameters FROM authenticators WHERE user_id = \(bind: userID) AND kind = 'totp'").all()
        }
        let now = clock.now()
        var found = CodeCheck.rejected
        for row in rows {
            let parameters = try JSONDecoder().decode(TOTPParameters.self, from: Data(try row.decode(column: "parameters", as: String.self).utf8))
            let secret = try box.open(try row.decode(column: "sealed_secret", as: String.self))
            let generator = parameters.generator(secret: Array(secret))
            guard let step = generator.matchingStep(for: code, at: now) else { continue }
            let id = try row.decode(column: "id", as: String.self)
            let advanced = try await database.transaction { sql in
                try await sql.raw(
                    """
                    UPDATE authenticators SET last_used_step = \(bind: step) WHERE id = \(bind: id) AND last_used_step < \(bind: step) RETURNING id
                    """
                ).first() != nil
            }
            if advanced { return .accepted }
            found = .replayed
        }
        return found
    }

    /// Replaces the user's recovery codes with a new set and returns them; they are shown once. `endingSessions`
    /// signs the account out everywhere in the same transaction (a replacement, not a first enrollment).
    package func replaceRecoveryCodes(userID: String, endingSessions: Bool) async throws -> [String] {
        let codes = (0..<Self.recoveryCodeCount).map { _ in Self.newRecoveryCode() }
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM recovery_codes WHERE user_id = \(bind: userID)").run()
            if endingSessions { try await UserStore.endEverything(for: userID, at: now, in: sql) }
            for code in codes {
                try await sql.raw(
                    """
                    INSERT INTO recovery_codes (code_hash, user_id, created_at) VALUES (\(bind: recoveryHash(code)), \(bind: userID), \(bind: now))
                    """
                ).run()
            }
        }
        return codes
    }

    /// Uses up one recovery code; `true` only for an unused code of this user, and only once.
    package func redeemRecoveryCode(userID: String, code: String) async throws -> Bool {
        let hash = recoveryHash(code)
        let now = clock.now()
        return try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE recovery_codes SET used_at = \(bind: now)
                WHERE code_hash = \(bind: hash) AND user_id = \(bind: userID) AND used_at IS NULL RETURNING code_hash
                """
            ).first() != nil
        }
    }

    /// Removes one second factor of the user: the authenticator app with its recovery codes, the phone (both ways of
    /// getting its codes), or the email address's codes. `false` when the user had none such (passkeys are removed
    /// from their own store).
    package func remove(_ factor: SecondFactor, userID: String) async throws -> Bool {
        let kind: String
        switch factor {
        case .totp: kind = Kind.totp
        case .sms, .voice: kind = Kind.phone
        case .email: kind = Kind.email
        // Passkeys are removed from their own store, pushes with their device identity.
        case .passkey, .recoveryCode, .push: return false
        }
        return try await database.transaction { sql in
            let removed =
                try await sql.raw("DELETE FROM authenticators WHERE user_id = \(bind: userID) AND kind = \(bind: kind) RETURNING kind").first() != nil
            // Recovery codes are the authenticator app's fallback: they go with it.
            if removed && factor == .totp { try await sql.raw("DELETE FROM recovery_codes WHERE user_id = \(bind: userID)").run() }
            return removed
        }
    }

    /// Removes every second factor of the user (an operator's reset when a phone is lost).
    package func removeAll(userID: String) async throws {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM authenticators WHERE user_id = \(bind: userID)").run()
            try await sql.raw("DELETE FROM recovery_codes WHERE user_id = \(bind: userID)").run()
        }
    }

    /// Ten Base32 characters (50 bits) in two groups, e.g. `k3vq7-m2xpa`; easy to copy, hard to guess online.
    package static func newRecoveryCode() -> String {
        let text = Base32.encode(SecureRandom.bytes(7)).prefix(10).lowercased()
        return "\(text.prefix(5))-\(text.suffix(5))"
    }

    /// Ignores case, spaces and dashes, so a code typed back by hand still matches.
    private func recoveryHash(_ code: String) -> String {
        let normalized = code.lowercased().filter { $0.isLetter || $0.isNumber }
        let key = SymmetricKey(data: box.derivedBytes("recovery codes"))
        return Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(normalized.utf8), using: key))
    }

    /// The TOTP settings stored beside a sealed secret.
    private struct TOTPParameters: Codable {
        var algorithm: OneTimePassword.Algorithm
        var digits: Int
        var period: Int64

        init(_ generator: OneTimePassword) {
            algorithm = generator.algorithm
            digits = generator.digits
            period = generator.period
        }

        func generator(secret: [UInt8]) -> OneTimePassword {
            OneTimePassword(secret: secret, algorithm: algorithm, digits: digits, period: period)
        }
    }

    package init(database: any Database, clock: UnixClock, box: SecretBox) {
        self.database = database
        self.clock = clock
        self.box = box
    }
}
