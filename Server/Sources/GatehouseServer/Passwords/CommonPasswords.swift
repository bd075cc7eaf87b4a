/// Passwords too common to allow (NIST SP 800-63B §5.1.1.2: reject values from breach corpuses).
enum CommonPasswords {
    /// Lowercased; built on first use.
    static let all: Set<String> = Set(listText.split(separator: "\n").map(String.init))

    /// Whether `password`, ignoring case, is on the list.
    static func contains(_ password: String) -> Bool {
        all.contains(password.lowercased())
    }
}
