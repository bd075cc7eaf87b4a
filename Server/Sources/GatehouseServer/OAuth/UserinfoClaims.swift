/// The userinfo response (OpenID Connect Core §5.3.2): `sub` plus the claims the token's scopes release;
/// absent claims are left out of the JSON.
struct UserinfoClaims: Encodable, Equatable, Sendable {
    var sub: String
    var preferredUsername: String?
    var name: String?
    var givenName: String?
    var familyName: String?
    var updatedAt: Int64?
    var email: String?
    var emailVerified: Bool?
    var phoneNumber: String?
    var phoneNumberVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case sub, name, email
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
    func write(to writer: inout JSONObjectWriter) {
        writer.member("email", email)
        writer.member("email_verified", emailVerified)
        writer.member("family_name", familyName)
        writer.member("given_name", givenName)
        writer.member("name", name)
        writer.member("phone_number", phoneNumber)
        writer.member("phone_number_verified", phoneNumberVerified)
        writer.member("preferred_username", preferredUsername)
        writer.member("sub", sub)
        writer.member("updated_at", updatedAt)
    }
}
