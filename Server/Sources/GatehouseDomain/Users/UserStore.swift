import Foundation
import GatehouseFoundation
import SQLKit

/// Users in the database. Usernames and emails are stored lowercased, so lookups ignore case.
public struct UserStore: Sendable {
    package let database: any Database
    package let clock: UnixClock

    public init(database: any Database, clock: UnixClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// Creates a user. Throws a ``DatabaseError`` that ``DatabaseError/isDuplicate`` when the username or email is taken.
    @discardableResult
    public func create(username: String, email: String, name: String?, passwordHash: String, emailVerified: Bool = true) async throws -> User {
        try await create(
            username: username, profile: UserProfile(email: email, name: name), passwordHash: passwordHash,
            emailVerified: emailVerified, phoneVerified: false)
    }

    /// Creates a user with a full profile. Throws a ``DatabaseError`` that ``DatabaseError/isDuplicate`` when the
    /// username or email is taken.
    @discardableResult
    public func create(username: String, profile: UserProfile, passwordHash: String, emailVerified: Bool, phoneVerified: Bool) async throws -> User {
        try AccountInputValidation.validateUsername(username, email: profile.email)
        let now = clock.now()
        let user = User(
            id: UUID().uuidString.lowercased(), username: username.lowercased(), email: profile.email.lowercased(), emailVerified: emailVerified,
            name: profile.name, givenName: profile.givenName, familyName: profile.familyName, phoneNumber: profile.phoneNumber,
            phoneVerified: phoneVerified && profile.phoneNumber != nil, passwordHash: passwordHash, passwordChangedAt: now,
            isLocked: false, createdAt: now, updatedAt: now
        )
        try await database.transaction { sql in
            let taken = try await sql.raw(
                """
                SELECT username FROM users WHERE username = \(bind: user.username) OR email = \(bind: user.email)
                """
            ).first()
            if let taken {
                let sameUsername = (try? taken.decode(column: "username", as: String.self)) == user.username
                throw DatabaseError.duplicate(sameUsername ? "A user named \(user.username)" : "A user with the email \(user.email)")
            }
            try await sql.raw(
                """
                INSERT INTO users (id, username, email, email_verified, name, given_name, family_name, phone_number, phone_verified,
                                   password_hash, password_changed_at, locked, created_at, updated_at)
                VALUES (\(bind: user.id), \(bind: user.username), \(bind: user.email), \(bind: user.emailVerified ? 1 : 0),
                        \(bind: user.name), \(bind: user.givenName), \(bind: user.familyName), \(bind: user.phoneNumber),
                        \(bind: user.phoneVerified ? 1 : 0), \(bind: user.passwordHash), \(bind: now), 0, \(bind: now), \(bind: now))
                """
            ).run()
        }
        return user
    }

    /// Inserts imported users, whose passwords are already hashed (`passwordHashes[i]` for `records[i]`), all in
    /// one transaction and many rows per statement: a million take seconds, and a duplicate username or email
    /// (a ``DatabaseError`` that ``DatabaseError/isDuplicate``) leaves none of them behind.
    public func importUsers(_ records: [UserImportRecord], passwordHashes: [String]) async throws {
        precondition(records.count == passwordHashes.count, "one hash per record")
        let now = clock.now()
        // 15 values per row: 300 rows stay under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
        let rowsPerStatement = 300
        try await database.transaction { sql in
            var seen = Set<String>()
            for start in stride(from: 0, to: records.count, by: rowsPerStatement) {
                let batch = start..<min(start + rowsPerStatement, records.count)
                let usernames = batch.map { records[$0].username.lowercased() }
                let emails = batch.map { records[$0].email.lowercased() }
                for (username, email) in zip(usernames, emails) {
                    guard seen.insert("u:" + username).inserted else { throw DatabaseError.duplicate("A user named \(username)") }
                    guard seen.insert("e:" + email).inserted else { throw DatabaseError.duplicate("A user with the email \(email)") }
                }
                let list = { (values: [String]) -> SQLQueryString in values.map { value -> SQLQueryString in "\(bind: value)" }.joined(separator: ", ") }
                if let taken = try await sql.raw(
                    """
                    SELECT username, email FROM users WHERE username IN (\(list(usernames))) OR email IN (\(list(emails))) LIMIT 1
                    """
                ).first() {
                    let username = try taken.decode(column: "username", as: String.self)
                    throw DatabaseError.duplicate(
                        Set(usernames).contains(username)
                            ? "A user named \(username)"
                            : "A user with the email \(try taken.decode(column: "email", as: String.self))")
                }
                let rows = zip(batch, zip(usernames, emails)).map { index, key -> SQLQueryString in
                    let record = records[index]
                    let profile = UserProfile(email: record.email, name: record.name, givenName: record.givenName, familyName: record.familyName)
                    return """
                        (\(bind: UUID().uuidString.lowercased()), \(bind: key.0), \(bind: key.1),
                         \(bind: record.emailVerified == false ? 0 : 1), \(bind: profile.name), \(bind: profile.givenName), \(bind: profile.familyName),
                         \(bind: String?.none), 0, \(bind: passwordHashes[index]), \(bind: now), 0, \(bind: now), \(bind: now),
                         \(bind: record.locale.flatMap(Language.init(tag:))?.tag))
                        """
                }
                try await sql.raw(
                    """
                    INSERT INTO users (id, username, email, email_verified, name, given_name, family_name, phone_number, phone_verified,
                                       password_hash, password_changed_at, locked, created_at, updated_at, locale)
                    VALUES \(rows.joined(separator: ", "))
                    """
                ).run()
            }
        }
    }

    /// The user whose email is `identifier` when it has an `@`, else whose username it is: never a choice
    /// between two accounts (a username with an `@` is its owner's email, see
    /// ``AccountInputValidation/validateUsername(_:email:)``).
    public func find(usernameOrEmail identifier: String) async throws -> User? {
        let key = identifier.lowercased()
        let column: SQLQueryString = key.contains("@") ? "email" : "username"
        return try await database.read { sql in
            try await sql.raw("SELECT * FROM users WHERE \(column) = \(bind: key)").first().map(Self.decode)
        }
    }

    /// Whether `email` belongs to an account: to one that proved it (a code to it, or a provider trusted for it), or
    /// with `unproven` also to one that did not.
    package func emailIsTaken(_ email: String, unproven: Bool = true) async throws -> Bool {
        let key = email.lowercased()
        return try await database.read { sql in
            let proven: SQLQueryString = unproven ? "" : " AND email_verified = 1"
            return try await sql.raw("SELECT id FROM users WHERE email = \(bind: key)\(proven)").first() != nil
        }
    }

    /// Takes `email` away from the account that holds it without having proved it, for someone who just proved it: an
    /// address no one proved must not keep its owner out (anyone can make an account through a provider not trusted
    /// for addresses, carrying any address). That account keeps everything else, under an address that reaches no one.
    /// Returns the account it was taken from, if any, with its address as it is now.
    package func releaseUnprovenEmail(_ email: String) async throws -> User? {
        let key = email.lowercased()
        let now = clock.now()
        return try await database.transaction { sql in
            guard let holder = try await sql.raw("SELECT * FROM users WHERE email = \(bind: key) AND email_verified = 0").first().map(Self.decode)
            else { return nil }
            try await sql.raw(
                "UPDATE users SET email = \(bind: Self.releasedEmail(of: holder.id)), updated_at = \(bind: now) WHERE id = \(bind: holder.id)"
            ).run()
            return try await Self.find(id: holder.id, in: sql)
        }
    }

    /// The address an account is left with when its unproven one is claimed: unique, and in a domain that never
    /// receives mail (RFC 6761 `.invalid`).
    package static func releasedEmail(of userID: String) -> String {
        "\(userID)@released.invalid"
    }

    /// Sets a new password chosen by the user: it restarts the password's age and signs the account out
    /// everywhere (whoever knew the old password loses access); the flow that changed it starts the one
    /// session that remains.
    package func changePassword(userID: String, to hash: String) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE users SET password_hash = \(bind: hash), password_changed_at = \(bind: now), updated_at = \(bind: now) WHERE id = \(bind: userID)
                """
            ).run()
            try await Self.endEverything(for: userID, at: now, in: sql)
        }
    }

    /// Makes `username` choose a new password at the next sign-in, whatever the expiry policy. Returns `false`
    /// when there is no such user.
    public func requirePasswordChange(username: String) async throws -> Bool {
        let key = username.lowercased()
        return try await database.transaction { sql in
            try await sql.raw("UPDATE users SET password_changed_at = 0 WHERE username = \(bind: key) RETURNING id").first() != nil
        }
    }

    public func find(username: String) async throws -> User? {
        let key = username.lowercased()
        return try await database.read { sql in
            try await sql.raw("SELECT * FROM users WHERE username = \(bind: key)").first().map(Self.decode)
        }
    }

    public func find(id: String) async throws -> User? {
        try await database.read { sql in try await Self.find(id: id, in: sql) }
    }

    /// ``find(id:)`` inside a transaction or read already open.
    package static func find(id: String, in sql: any SQLDatabase) async throws -> User? {
        try await sql.raw("SELECT * FROM users WHERE id = \(bind: id)").first().map(Self.decode)
    }

    /// Users whose username, email, a word of their name or phone number starts with `text` (case-insensitive), locked or active, ordered by username
    /// after `cursor` (the last username of the previous page).
    package func search(text: String?, locked: Bool?, after cursor: String?, limit: Int) async throws -> [User] {
        var conditions: [SQLQueryString] = []
        if let text, !text.isEmpty {
            // Wildcards in the text are literal: escaped for LIKE with a backslash.
            let escaped = text.lowercased().replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            let pattern = escaped.replacingOccurrences(of: "_", with: "\\_") + "%"
            // A name matches from any word's start; a phone number typed with spaces or dashes matches as stored (E.164).
            var matches: SQLQueryString = """
                (username LIKE \(bind: pattern) ESCAPE '\\' OR email LIKE \(bind: pattern) ESCAPE '\\'
                 OR LOWER(name) LIKE \(bind: pattern) ESCAPE '\\' OR LOWER(name) LIKE \(bind: "% " + pattern) ESCAPE '\\'
                """
            let digits = text.filter { $0.isNumber || $0 == "+" }
            if digits.count >= 4 { matches = matches + " OR phone_number LIKE \(bind: digits + "%")" }
            conditions.append(matches + ")")
        }
        if let locked { conditions.append("locked = \(bind: locked ? 1 : 0)") }
        if let cursor { conditions.append("username > \(bind: cursor)") }
        var query: SQLQueryString = "SELECT * FROM users"
        for (index, condition) in conditions.enumerated() { query = query + (index == 0 ? " WHERE " : " AND ") + condition }
        query = query + " ORDER BY username LIMIT \(bind: limit)"
        let statement = query
        return try await database.read { sql in try await sql.raw(statement).all().map(Self.decode) }
    }

    /// Changes the profile of `userID` to `changed`, only while the stored user is still `expected` (what the caller
    /// read): returns the updated user, `nil` when the user changed meanwhile. Throws a duplicate ``DatabaseError`` when
    /// the new email address is another user's.
    package func update(_ expected: User, to changed: User) async throws -> User? {
        let now = clock.now()
        return try await database.transaction { [database] sql in
            try await database.lock(.operatorChanges, in: sql)
            guard let current = try await Self.find(id: expected.id, in: sql), current == expected else { return nil }
            if changed.email != current.email,
                try await sql.raw("SELECT id FROM users WHERE email = \(bind: changed.email) AND id <> \(bind: current.id)").first() != nil
            {
                throw DatabaseError.duplicate("A user with the email \(changed.email)")
            }
            try await sql.raw(
                """
                UPDATE users SET email = \(bind: changed.email), email_verified = \(bind: changed.emailVerified ? 1 : 0), name = \(bind: changed.name),
                    given_name = \(bind: changed.givenName), family_name = \(bind: changed.familyName), phone_number = \(bind: changed.phoneNumber),
                    phone_verified = \(bind: changed.phoneVerified ? 1 : 0), updated_at = \(bind: now),
                    address = \(bind: try changed.address.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) })
                WHERE id = \(bind: current.id)
                """
            ).run()
            return try await Self.find(id: current.id, in: sql)
        }
    }

    public func list() async throws -> [User] {
        try await database.read { sql in
            try await sql.raw("SELECT * FROM users ORDER BY username").all().map(Self.decode)
        }
    }

    /// Locks or unlocks an account. Locking also ends the user's browser sessions and revokes their tokens.
    /// Returns `false` when there is no such user.
    public func setLocked(username: String, _ locked: Bool) async throws -> Bool {
        let key = username.lowercased()
        let now = clock.now()
        return try await database.transaction { sql in
            guard let row = try await sql.raw("SELECT id FROM users WHERE username = \(bind: key)").first() else { return false }
            let id = try row.decode(column: "id", as: String.self)
            try await sql.raw("UPDATE users SET locked = \(bind: locked ? 1 : 0), updated_at = \(bind: now) WHERE id = \(bind: id)").run()
            if locked { try await Self.endEverything(for: id, at: now, in: sql) }
            return true
        }
    }

    /// Deletes a user with their sessions, codes and tokens. Returns `false` when there is no such user.
    public func delete(username: String) async throws -> Bool {
        let key = username.lowercased()
        return try await database.transaction { sql in
            guard let row = try await sql.raw("SELECT id FROM users WHERE username = \(bind: key)").first() else { return false }
            let id = try row.decode(column: "id", as: String.self)
            try await LogoutNotificationQueue.sessionsEnding(where: "user_id = \(bind: id)", at: clock.now(), in: sql)
            for table in ["browser_sessions", "authorization_codes", "access_tokens", "refresh_tokens", "device_identities"] {
                try await sql.raw("DELETE FROM \(unsafeRaw: table) WHERE user_id = \(bind: id)").run()
            }
            try await sql.raw("DELETE FROM users WHERE id = \(bind: id)").run()
            return true
        }
    }

    /// The person answered "Not now" to setting up a second factor: the offer waits (``SignOnPolicy/enrollmentReminderDays``).
    package func declineEnrollment(userID: String) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw("UPDATE users SET enrollment_declined_at = \(bind: now), updated_at = \(bind: now) WHERE id = \(bind: userID)").run()
        }
    }

    /// Stores the language the person chose (a shipped language's tag), or forgets it with `nil`.
    package func setLocale(userID: String, to locale: String?) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw("UPDATE users SET locale = \(bind: locale), updated_at = \(bind: now) WHERE id = \(bind: userID)").run()
        }
    }

    public func updatePasswordHash(userID: String, to hash: String) async throws {
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw("UPDATE users SET password_hash = \(bind: hash), updated_at = \(bind: now) WHERE id = \(bind: userID)").run()
        }
    }

    /// Ends every browser session of the user (the clients they signed in to are told, by back-channel logout) and
    /// revokes every token.
    package static func endEverything(for userID: String, at now: Int64, in sql: any SQLDatabase) async throws {
        try await LogoutNotificationQueue.sessionsEnding(where: "user_id = \(bind: userID)", at: now, in: sql)
        try await sql.raw("DELETE FROM browser_sessions WHERE user_id = \(bind: userID)").run()
        try await sql.raw("UPDATE access_tokens SET revoked_at = \(bind: now) WHERE user_id = \(bind: userID) AND revoked_at IS NULL").run()
        try await sql.raw("UPDATE refresh_tokens SET revoked_at = \(bind: now) WHERE user_id = \(bind: userID) AND revoked_at IS NULL").run()
    }

    package static func decode(_ row: any SQLRow) throws -> User {
        User(
            id: try row.decode(column: "id", as: String.self),
            username: try row.decode(column: "username", as: String.self),
            email: try row.decode(column: "email", as: String.self),
            emailVerified: try row.decode(column: "email_verified", as: Int.self) != 0,
            name: try row.decode(column: "name", as: String?.self),
            givenName: try row.decode(column: "given_name", as: String?.self),
            familyName: try row.decode(column: "family_name", as: String?.self),
            phoneNumber: try row.decode(column: "phone_number", as: String?.self),
            phoneVerified: try row.decode(column: "phone_verified", as: Int.self) != 0,
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            passwordChangedAt: try row.decode(column: "password_changed_at", as: Int64?.self) ?? row.decode(column: "created_at", as: Int64.self),
            isLocked: try row.decode(column: "locked", as: Int.self) != 0,
            createdAt: try row.decode(column: "created_at", as: Int64.self),
            updatedAt: try row.decode(column: "updated_at", as: Int64.self),
            enrollmentDeclinedAt: try row.decode(column: "enrollment_declined_at", as: Int64?.self),
            address: try row.decode(column: "address", as: String?.self).flatMap { try? JSONDecoder().decode(PostalAddress.self, from: Data($0.utf8)) },
            locale: try row.decode(column: "locale", as: String?.self)
        )
    }
}
