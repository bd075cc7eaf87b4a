/// The standard claims (OpenID Connect Core §5.4) each scope brings, and those a relying party asks for by name
/// (``ClaimsRequest``), read from the user.
package enum ScopeClaims {
    /// The claims each scope brings to the userinfo answer.
    package static let byScope: [String: [String]] = [
        "profile": ["name", "given_name", "family_name", "preferred_username", "locale", "updated_at"],
        "email": ["email", "email_verified"],
        "phone": ["phone_number", "phone_number_verified"],
        "address": ["address"],
    ]

    /// The scopes that release claims, in the order a consent page lists them.
    private static let releasingScopes = ["profile", "email", "phone", "address"]

    /// The scopes whose claims `requested` names, for the ID token or userinfo: a claim asked for by name counts as the
    /// scope that releases it, so a person allows it (and the consent records it) as they would allow that scope.
    package static func scopes(releasing requested: ClaimsRequest?) -> [String] {
        guard let requested else { return [] }
        let names = Set(requested.idToken + requested.userinfo)
        return releasingScopes.filter { scope in byScope[scope]?.contains(where: names.contains) ?? false }
    }

    /// `requested` without the claims of scopes outside `allowed` (the client's): a client gets by name only what it
    /// could get by scope (OpenID Connect Core §5.5 lets a provider leave a requested claim out).
    package static func limiting(_ requested: ClaimsRequest, to allowed: [String]) -> ClaimsRequest {
        let held = Set(allowed.flatMap { byScope[$0] ?? [] })
        var limited = requested
        limited.idToken = requested.idToken.filter(held.contains)
        limited.userinfo = requested.userinfo.filter(held.contains)
        return limited
    }

    /// Every claim Gatehouse holds for a person, which a `claims` request may name.
    package static let supported: Set<String> = Set(byScope.values.joined())

    /// The scopes whose claims the ID token carries too (as before the `claims` parameter; the rest come from userinfo).
    private static let idTokenScopes = ["profile", "email"]

    /// The claims for `scopes`, and those `requested` by name.
    private static func names(for scopes: [String], among included: [String]? = nil, requested: [String]) -> Set<String> {
        Set(scopes.filter { included?.contains($0) ?? true }.flatMap { byScope[$0] ?? [] }).union(requested)
    }

    /// The userinfo claims for `user` under `scopes`, with the claims `requested` for userinfo.
    package static func userinfo(for user: User, scopes: [String], requested: ClaimsRequest? = nil) -> UserinfoClaims {
        var claims = UserinfoClaims(sub: user.id)
        fill(&claims, with: names(for: scopes, requested: requested?.userinfo ?? []), from: user)
        return claims
    }

    /// Adds to an ID token the claims of its profile and email scopes (but `updated_at`), and those `requested` for the
    /// ID token.
    package static func apply(to claims: inout IDTokenClaims, user: User, scopes: [String], requested: ClaimsRequest? = nil) {
        var names = names(for: scopes, among: idTokenScopes, requested: [])
        names.remove("updated_at")
        fill(&claims, with: names.union(requested?.idToken ?? []), from: user)
    }

    private static func fill(_ claims: inout some PersonClaims, with names: Set<String>, from user: User) {
        if names.contains("preferred_username") { claims.preferredUsername = user.username }
        if names.contains("name") { claims.name = user.name }
        if names.contains("given_name") { claims.givenName = user.givenName }
        if names.contains("family_name") { claims.familyName = user.familyName }
        if names.contains("locale") { claims.locale = user.locale }
        if names.contains("updated_at") { claims.updatedAt = user.updatedAt }
        if names.contains("email") { claims.email = user.email }
        if names.contains("email_verified") { claims.emailVerified = user.emailVerified }
        if let phone = user.phoneNumber {
            if names.contains("phone_number") { claims.phoneNumber = phone }
            if names.contains("phone_number_verified") { claims.phoneNumberVerified = user.phoneVerified }
        }
        if names.contains("address"), let address = user.address, !address.isEmpty { claims.address = address }
    }
}

/// The claims about a person that the ID token and the userinfo answer share.
package protocol PersonClaims {
    var preferredUsername: String? { get set }
    var name: String? { get set }
    var givenName: String? { get set }
    var familyName: String? { get set }
    /// The language the person chose (a BCP 47 tag), absent while their pages follow the browser's.
    var locale: String? { get set }
    var updatedAt: Int64? { get set }
    var email: String? { get set }
    var emailVerified: Bool? { get set }
    var phoneNumber: String? { get set }
    var phoneNumberVerified: Bool? { get set }
    var address: PostalAddress? { get set }
}

extension UserinfoClaims: PersonClaims {}
extension IDTokenClaims: PersonClaims {}
