import Foundation

/// Who another identity provider says signed in: its stable subject, and the claims an account is made from.
package struct UpstreamProfile: Sendable, Codable, Equatable {
    package var providerID: String
    /// The provider's `sub` (or the mapped member, such as GitHub's numeric `id`): the identity's key, never reassigned.
    package var subject: String
    package var username: String?
    package var name: String?
    /// The address the provider gave, lowercased.
    package var email: String?
    /// Whether the provider said the address is confirmed, and is trusted to say so (`trust_email`).
    package var emailVerified: Bool
    /// The provider's `amr`, honoured only with `trust_mfa`.
    package var methods: [String] = []
    /// The provider's tokens, sealed, when `keep_tokens` asks for them.
    package var sealedTokens: String?

    /// The profile mapped from `claims` by `provider`'s claim mapping. `nil` without a subject.
    package init?(claims: [String: Any], provider: IdentityProvider) {
        let mapping = provider.claims
        func text(_ key: String) -> String? {
            switch claims[key] {
            case let value as String: value.isEmpty ? nil : value
            // GitHub's `id` is a number.
            case let value as Int: String(value)
            default: nil
            }
        }
        guard let subject = text(mapping.subject), subject.count <= 255 else { return nil }
        providerID = provider.id
        self.subject = subject
        username = text(mapping.username).map { String($0.prefix(64)) }
        name = text(mapping.name).map { String($0.prefix(200)) }
        email = text(mapping.email).map { $0.lowercased() }.flatMap { (try? AccountInputValidation.validateEmail($0)) == nil ? nil : $0 }
        // Some providers send `"true"` as a string.
        let verified = (claims[mapping.emailVerified] as? Bool) ?? ((claims[mapping.emailVerified] as? String) == "true")
        emailVerified = provider.trustEmail && verified && email != nil
        methods = claims["amr"] as? [String] ?? []
    }
}
