import GatehouseFoundation

/// Rules for what operators and users may enter as usernames, emails and passwords.
public enum AccountInputValidation {
    /// Letters, digits and `. _ - @`, 1 to 64 characters; a username with an `@` must be the user's own `email`.
    ///
    /// Identifiers with an `@` are resolved as email addresses, so a username shaped like someone else's
    /// address could otherwise catch their recovery or device binding.
    public static func validateUsername(_ username: String, email: String) throws {
        let allowed = username.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }
        guard (1...64).contains(username.count), allowed else {
            throw ConfigurationError("The username \"\(username)\" is not valid: use 1 to 64 letters, digits, '.', '_', '-' or '@'.")
        }
        guard !username.contains("@") || username.lowercased() == email.lowercased() else {
            throw ConfigurationError(
                "The username \"\(username)\" looks like an email address but is not the user's own (\(email)): "
                    + "use the email itself or a name without '@'.")
        }
    }

    /// A plausible address: one `@`, something before it, a dotted domain after it, no spaces.
    public static func validateEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid =
            email.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !email.contains(where: { $0.isWhitespace })
            && !email.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        guard valid else {
            throw ConfigurationError("The email address \"\(email)\" is not valid.")
        }
    }
}
