import Foundation
import GatehouseFoundation

/// One user to import (`gatehouse users import`): a JSON object per line, moving accounts from another
/// system or seeding a large test database. The password comes either hashed, as a PHC scrypt string
/// (`$scrypt$ln=17,r=8,p=1$SALT$HASH`, checked at sign-in like any other and re-hashed when the parameters
/// differ from the configured ones), or in clear, hashed on import and held to the password policy.
public struct UserImportRecord: Sendable, Decodable, Equatable {
    /// The sign-in name (letters, digits, `.` `_` `-` `@`); stored lowercased.
    public var username: String
    /// The email address; stored lowercased.
    public var email: String
    /// The full name; defaults to the given and family names joined.
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    /// Whether the email was confirmed in the system the user comes from; default `true`.
    public var emailVerified: Bool?
    /// The password as a PHC scrypt string; give this or ``password``.
    public var passwordHash: String?
    /// The password in clear, hashed on import; give this or ``passwordHash``.
    public var password: String?
    /// The language the person reads pages and messages in (a shipped language's BCP 47 tag, such as `fr`); without
    /// one, pages follow the browser's language.
    public var locale: String?

    package enum CodingKeys: String, CodingKey {
        case username, email, name, password, locale
        case givenName = "given_name"
        case familyName = "family_name"
        case emailVerified = "email_verified"
        case passwordHash = "password_hash"
    }

    /// A record for `username`, with a PHC scrypt `passwordHash` or a clear `password`.
    public init(
        username: String, email: String, name: String? = nil, givenName: String? = nil, familyName: String? = nil,
        emailVerified: Bool? = nil, passwordHash: String? = nil, password: String? = nil, locale: String? = nil
    ) {
        self.username = username
        self.email = email
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.emailVerified = emailVerified
        self.passwordHash = passwordHash
        self.password = password
        self.locale = locale
    }

    /// Checks the username, the email, the language, and that exactly one usable form of the password is given.
    /// - Throws: ``ConfigurationError`` saying what is wrong.
    public func validate(policy: PasswordPolicy) throws {
        try AccountInputValidation.validateUsername(username, email: email)
        try AccountInputValidation.validateEmail(email)
        if let locale, Language(tag: locale) == nil {
            throw ConfigurationError("locale must be one of \(Language.allCases.map(\.tag).joined(separator: ", ")); not \(locale.prefix(35)).")
        }
        switch (passwordHash, password) {
        case (let hash?, nil):
            guard PasswordHasher.decode(hash) != nil else {
                throw ConfigurationError("password_hash is not a PHC scrypt string like $scrypt$ln=17,r=8,p=1$SALT$HASH.")
            }
        case (nil, let password?):
            if let problem = policy.problem(with: password, username: username, email: email) {
                throw ConfigurationError("The password is not accepted: \(problem)")
            }
        default:
            throw ConfigurationError("Give exactly one of password_hash and password.")
        }
    }
}
