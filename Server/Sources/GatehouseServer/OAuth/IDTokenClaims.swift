import JWTKit

/// The claims of an ID token (OpenID Connect Core §2), plus the standard claims its scopes allow.
struct IDTokenClaims: JWTPayload, Equatable {
    var iss: String
    var sub: String
    var aud: String
    var exp: Int64
    var iat: Int64
    var authTime: Int64
    var nonce: String?
    var azp: String
    var amr: [String]?
    var acr: String?
    var sid: String?
    var name: String?
    var givenName: String?
    var familyName: String?
    var preferredUsername: String?
    var email: String?
    var emailVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, azp, amr, acr, sid, name, email
        case authTime = "auth_time"
        case preferredUsername = "preferred_username"
        case givenName = "given_name"
        case familyName = "family_name"
        case emailVerified = "email_verified"
    }

    /// Signature checks are done by the key collection; what a hint needs beyond that is checked by the caller.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

extension IDTokenClaims: JSONObjectWritable {
    func write(to writer: inout JSONObjectWriter) {
        writer.member("acr", acr)
        writer.member("amr", amr)
        writer.member("aud", aud)
        writer.member("auth_time", authTime)
        writer.member("azp", azp)
        writer.member("email", email)
        writer.member("email_verified", emailVerified)
        writer.member("exp", exp)
        writer.member("family_name", familyName)
        writer.member("given_name", givenName)
        writer.member("iat", iat)
        writer.member("iss", iss)
        writer.member("name", name)
        writer.member("nonce", nonce)
        writer.member("preferred_username", preferredUsername)
        writer.member("sid", sid)
        writer.member("sub", sub)
    }
}
