import GatehouseFoundation

/// Passwords too common to allow (NIST SP 800-63B §5.1.1.2: reject values from breach corpuses).
///
/// The list is the resource `common-passwords.txt`: the 30,000 most common passwords, most common first, one per
/// line, from the "passwords" frequency list of zxcvbn (https://github.com/dropbox/zxcvbn, MIT licence), which ranks
/// Mark Burnett's public corpus of ten million passwords from breaches (Xato, 2015).
package enum CommonPasswords {
    /// Lowercased; built on first use.
    package static let all: Set<String> = Set(PackageResources.contents("common-passwords.txt").split(separator: "\n").map { $0.lowercased() })

    /// Whether `password`, ignoring case, is on the list.
    package static func contains(_ password: String) -> Bool {
        all.contains(password.lowercased())
    }
}
