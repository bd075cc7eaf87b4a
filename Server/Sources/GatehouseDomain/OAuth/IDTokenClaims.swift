import GatehouseFoundation
import JWTKit

/// The claims of an ID token (OpenID Connect Core §2), plus the standard claims its scopes allow.
package struct IDTokenClaims: JWTPayload, Equatable {
    package var iss: String
    package var sub: String
    package var aud: String
    package var exp: Int64
    package var iat: Int64
    package var authTime: Int64
    package var nonce: String?
    package var azp: String
    package var amr: [String]?
    package var acr: String?
    package var sid: String?
    package var name: String?
    package var givenName: String?
    package var familyName: String?
    package var locale: String?
    package var preferredUsername: String?
    package var email: String?
    package var emailVerified: Bool?
    package var phoneNumber: String?
    package var phoneNumberVerified: Bool?
    package var address: PostalAddress?
    package var updatedAt: Int64?
    /// The access token's hash (OpenID Connect Core §3.1.3.6): the left half of its SHA-256, base64url.
    package var atHash: String?
    /// Claims hooks added (`hooks` at `tokens`), each within its hook's namespace, written after the others.
    package var extra = HookClaims()

    package enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, azp, amr, acr, sid, name, email, address, locale
        case authTime = "auth_time"
        case preferredUsername = "preferred_username"
        case givenName = "given_name"
        case familyName = "family_name"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case updatedAt = "updated_at"
        case atHash = "at_hash"
    }

    /// Signature checks are done by the key collection; what a hint needs beyond that is checked by the caller.
    package func verify(using algorithm: some JWTAlgorithm) async throws {}

    package init(
        iss: String, sub: String, aud: String, exp: Int64, iat: Int64, authTime: Int64, nonce: String? = nil, azp: String, amr: [String]? = nil,
        acr: String? = nil, sid: String? = nil, name: String? = nil, givenName: String? = nil, familyName: String? = nil, preferredUsername: String? = nil,
        email: String? = nil, emailVerified: Bool? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.authTime = authTime
        self.nonce = nonce
        self.azp = azp
        self.amr = amr
        self.acr = acr
        self.sid = sid
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.preferredUsername = preferredUsername
        self.email = email
        self.emailVerified = emailVerified
    }
}

extension IDTokenClaims: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.member("acr", acr)
        writer.member("address", writing: address)
        writer.member("amr", amr)
        writer.member("at_hash", atHash)
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
        writer.member("locale", locale)
        writer.member("name", name)
        writer.member("nonce", nonce)
        writer.member("phone_number", phoneNumber)
        writer.member("phone_number_verified", phoneNumberVerified)
        writer.member("preferred_username", preferredUsername)
        writer.member("sid", sid)
        writer.member("sub", sub)
        writer.member("updated_at", updatedAt)
        for (name, json) in extra.members { writer.member(named: name, json: json) }
    }
}
