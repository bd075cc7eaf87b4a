import GatehouseFoundation

/// The userinfo response (OpenID Connect Core §5.3.2): `sub` plus the claims the token's scopes release;
/// absent claims are left out of the JSON.
package struct UserinfoClaims: Encodable, Equatable, Sendable {
    package var sub: String
    package var preferredUsername: String?
    package var name: String?
    package var givenName: String?
    package var familyName: String?
    package var locale: String?
    package var updatedAt: Int64?
    package var email: String?
    package var emailVerified: Bool?
    package var phoneNumber: String?
    package var phoneNumberVerified: Bool?
    package var address: PostalAddress?
    /// Claims the hooks at `tokens` added for the access token.
    package var extra = HookClaims()

    package enum CodingKeys: String, CodingKey {
        case sub, name, email, address, locale
        case preferredUsername = "preferred_username"
        case givenName = "given_name"
        case familyName = "family_name"
        case updatedAt = "updated_at"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
    }
}

extension UserinfoClaims: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.member("address", writing: address)
        writer.member("email", email)
        writer.member("email_verified", emailVerified)
        writer.member("family_name", familyName)
        writer.member("given_name", givenName)
        writer.member("locale", locale)
        writer.member("name", name)
        writer.member("phone_number", phoneNumber)
        writer.member("phone_number_verified", phoneNumberVerified)
        writer.member("preferred_username", preferredUsername)
        writer.member("sub", sub)
        writer.member("updated_at", updatedAt)
        for (name, json) in extra.members { writer.member(named: name, json: json) }
    }
}
