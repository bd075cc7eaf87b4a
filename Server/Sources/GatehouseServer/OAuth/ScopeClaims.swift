/// Which user claims each scope releases (OpenID Connect Core §5.4).
enum ScopeClaims {
    /// The userinfo claims for `user` under `scopes`, as a JSON object.
    static func userinfo(for user: User, scopes: [String]) -> [String: any Sendable] {
        var claims: [String: any Sendable] = ["sub": user.id]
        if scopes.contains("profile") {
            claims["preferred_username"] = user.username
            if let name = user.name { claims["name"] = name }
            if let givenName = user.givenName { claims["given_name"] = givenName }
            if let familyName = user.familyName { claims["family_name"] = familyName }
            claims["updated_at"] = Int(user.updatedAt)
        }
        if scopes.contains("email") {
            claims["email"] = user.email
            claims["email_verified"] = user.emailVerified
        }
        if scopes.contains("phone"), let phone = user.phoneNumber {
            claims["phone_number"] = phone
            claims["phone_number_verified"] = user.phoneVerified
        }
        return claims
    }

    /// Adds the same claims to an ID token.
    static func apply(to claims: inout IDTokenClaims, user: User, scopes: [String]) {
        if scopes.contains("profile") {
            claims.preferredUsername = user.username
            claims.name = user.name
            claims.givenName = user.givenName
            claims.familyName = user.familyName
        }
        if scopes.contains("email") {
            claims.email = user.email
            claims.emailVerified = user.emailVerified
        }
    }
}
