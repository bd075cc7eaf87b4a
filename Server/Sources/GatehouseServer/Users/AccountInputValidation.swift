/// Rules for what operators and users may enter as usernames, emails and passwords.
public enum AccountInputValidation {
    /// Letters, digits and `. _ - @`, 1 to 64 characters.
    public static func validateUsername(_ username: String) throws {
        let allowed = username.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }
        guard (1...64).contains(username.count), allowed else {
            throw ConfigurationError("The username \"\(username)\" is not valid: use 1 to 64 letters, digits, '.', '_', '-' or '@'.")
        }
    }

    /// A plausible address: one `@`, something before it, a dotted domain after it, no spaces.
    public static func validateEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid = email.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !email.contains(where: { $0.isWhitespace })
        guard valid else {
            throw ConfigurationError("The email address \"\(email)\" is not valid.")
        }
    }

    /// At least 8 characters (NIST SP 800-63B), at most 1024 so hashing cost stays bounded.
    public static func validatePassword(_ password: String) throws {
        guard !password.isEmpty else { throw ConfigurationError("The password is empty.") }
        guard password.count >= 8 else { throw ConfigurationError("The password must be at least 8 characters long.") }
        guard password.utf8.count <= 1024 else { throw ConfigurationError("The password must be at most 1024 bytes long.") }
    }
}
