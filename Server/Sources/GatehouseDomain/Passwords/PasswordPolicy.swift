import GatehouseFoundation

/// What a new password must satisfy, following NIST SP 800-63B: a minimum length, long passphrases allowed,
/// no composition rules, no common or breached passwords, nothing built from the account's own names.
/// Optional expiry with a warning period.
public struct PasswordPolicy: Sendable, Codable, Equatable {
    /// Characters a password needs at least (8 by default, as NIST requires).
    public var minLength = 8
    /// Characters a password may have at most; NIST asks for at least 64 to be allowed.
    public var maxLength = 256
    /// Refuse the 30,000 most common breached passwords.
    public var rejectCommon = true
    /// Days after which a password must be changed; `nil` (the default) means never.
    public var maxAgeDays: Int?
    /// Days before expiry during which sign-in offers to change the password (the user may skip).
    public var warningDays = 7

    /// The NIST defaults: 8 to 256 characters, common passwords refused, no expiry.
    public init() {}

    /// Keys left out of the configuration file keep their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        let defaults = PasswordPolicy()
        minLength = try container.decodeIfPresent(Int.self, forKey: .minLength) ?? defaults.minLength
        maxLength = try container.decodeIfPresent(Int.self, forKey: .maxLength) ?? defaults.maxLength
        rejectCommon = try container.decodeIfPresent(Bool.self, forKey: .rejectCommon) ?? defaults.rejectCommon
        maxAgeDays = try container.decodeIfPresent(Int.self, forKey: .maxAgeDays)
        warningDays = try container.decodeIfPresent(Int.self, forKey: .warningDays) ?? defaults.warningDays
    }

    package func validate() throws {
        guard (8...64).contains(minLength) else {
            throw ConfigurationError(key: "password_policy.min_length", "must be between 8 (the NIST minimum) and 64, not \(minLength).")
        }
        guard (64...1024).contains(maxLength), maxLength >= minLength else {
            throw ConfigurationError(key: "password_policy.max_length", "must be between 64 and 1024, not \(maxLength).")
        }
        if let maxAgeDays, maxAgeDays < 1 { throw ConfigurationError(key: "password_policy.max_age_days", "must be at least 1.") }
        guard warningDays >= 0 else { throw ConfigurationError(key: "password_policy.warning_days", "cannot be negative.") }
    }

    /// Why `password` is not acceptable for the account, in words for the person choosing it; `nil` when it is.
    public func problem(with password: String, username: String?, email: String?) -> String? {
        passwordProblem(with: password, username: username, email: email)?.english
    }

    /// What is wrong with `password` as a catalog message, for a person spoken to in their
    /// language; `nil` if the policy takes it.
    package func passwordProblem(with password: String, username: String?, email: String?) -> MessageReference? {
        if password.count < minLength { return MessageReference("password.too_short", ["min": "\(minLength)"]) }
        if password.count > maxLength || password.utf8.count > 1024 { return MessageReference("password.too_long", ["max": "\(maxLength)"]) }
        let lowered = password.lowercased()
        if let username, !username.isEmpty, lowered == username.lowercased() || (username.count >= 4 && lowered.contains(username.lowercased())) {
            return MessageReference("password.contains_username")
        }
        if let email, !email.isEmpty {
            let address = email.lowercased()
            let local = address.split(separator: "@").first.map(String.init) ?? address
            if lowered.contains(address) || (local.count >= 4 && lowered.contains(local)) {
                return MessageReference("password.contains_email")
            }
        }
        if rejectCommon, CommonPasswords.contains(password) {
            return MessageReference("password.common")
        }
        return nil
    }

    /// Seconds a password lives, when it expires at all.
    package var maxAge: Int64? { maxAgeDays.map { Int64($0) * 86_400 } }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case minLength = "min_length"
        case maxLength = "max_length"
        case rejectCommon = "reject_common"
        case maxAgeDays = "max_age_days"
        case warningDays = "warning_days"
    }
}
