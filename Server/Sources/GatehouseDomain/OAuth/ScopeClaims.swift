/// Which user claims each scope releases (OpenID Connect Core §5.4).
package enum ScopeClaims {
    /// The userinfo claims for `user` under `scopes`.
    package static func userinfo(for user: User, scopes: [String]) -> UserinfoClaims {
        var claims = UserinfoClaims(sub: user.id)
        if scopes.contains("profile") {
            claims.preferredUsername = user.username
            claims.name = user.name
            claims.givenName = user.givenName
            claims.familyName = user.familyName
            claims.updatedAt = user.updatedAt
        }
        if scopes.contains("email") {
            claims.email = user.email
            claims.emailVerified = user.emailVerified
        }
        if scopes.contains("phone"), let phone = user.phoneNumber {
            claims.phoneNumber = phone
            claims.phoneNumberVerified = user.phoneVerified
        }
        return claims
    }

    /// Adds the same claims to an ID token.
    package static func apply(to claims: inout IDTokenClaims, user: User, scopes: [String]) {
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
