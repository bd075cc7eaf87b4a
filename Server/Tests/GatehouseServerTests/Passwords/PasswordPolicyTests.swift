import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

@Suite("Password policy (NIST SP 800-63B)")
struct PasswordPolicyTests {
    private let policy = PasswordPolicy()

    @Test("the blocklist holds at least 10,000 common passwords and matches ignoring case")
    func blocklist() {
        #expect(CommonPasswords.all.count >= 10_000)
        for common in ["password", "qwertyuiop", "iloveyou", "PassWord", "Football"] {
            #expect(CommonPasswords.contains(common), "\(common)")
            #expect(policy.problem(with: common.count >= 8 ? common : common + common, username: "ada", email: "ada@example.com") != nil)
        }
        #expect(policy.problem(with: "qwertyuiop", username: nil, email: nil)?.contains("most common") == true)
        #expect(!CommonPasswords.contains("correct horse battery staple"))
    }

    @Test("short passwords are refused with the minimum in the message; the minimum is configurable")
    func length() {
        #expect(policy.problem(with: "k7#Vq2!", username: nil, email: nil) == "Use at least 8 characters.")
        var longer = PasswordPolicy()
        longer.minLength = 12
        #expect(longer.problem(with: "k7#Vq2!xZ9wL", username: nil, email: nil) == nil)
        #expect(longer.problem(with: "k7#Vq2!xZ9w", username: nil, email: nil) == "Use at least 12 characters.")
    }

    @Test("no composition rules, and passphrases of 64 and more characters are allowed")
    func passphrases() {
        #expect(policy.problem(with: "correct horse battery staple", username: "ada", email: "ada@example.com") == nil)
        #expect(policy.problem(with: "alllowercaseletters", username: nil, email: nil) == nil)
        #expect(policy.problem(with: String(repeating: "river stone ", count: 21), username: nil, email: nil) == nil)  // 252 characters
        #expect(policy.problem(with: String(repeating: "x", count: 257), username: nil, email: nil) == "Use at most 256 characters.")
    }

    @Test("passwords equal to or containing the username or email are refused")
    func accountNames() {
        #expect(policy.problem(with: "margaret", username: "Margaret", email: nil) == "The password must not contain your username.")
        #expect(policy.problem(with: "my margaret 2024", username: "margaret", email: nil) == "The password must not contain your username.")
        #expect(
            policy.problem(with: "xx m.smith@example.com", username: "ms", email: "m.smith@example.com") == "The password must not contain your email address.")
        #expect(
            policy.problem(with: "hello m.smith friend", username: "ms", email: "m.smith@example.com") == "The password must not contain your email address.")
        // A short username is only refused as the whole password, not as a fragment.
        #expect(policy.problem(with: "ms plus many words", username: "ms", email: nil) == nil)
    }

    @Test("configuration outside NIST's bounds is refused")
    func configurationBounds() {
        var weak = PasswordPolicy()
        weak.minLength = 6
        #expect(throws: ConfigurationError.self) { try weak.validate() }
        var short = PasswordPolicy()
        short.maxLength = 32
        #expect(throws: ConfigurationError.self) { try short.validate() }
        #expect(throws: Never.self) { try PasswordPolicy().validate() }
    }
}
