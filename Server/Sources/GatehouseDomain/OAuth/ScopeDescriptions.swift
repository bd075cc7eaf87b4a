import GatehouseFoundation

/// What each scope lets an application do, in the words a person reads before allowing it (the consent node, the
/// device confirmation).
package enum ScopeDescriptions {
    /// The plain-language description of `scope`.
    package static func describe(_ scope: String, in wording: Wording = .english) -> String {
        switch scope {
        case "openid": wording("scope.openid").text
        case "profile": wording("scope.profile").text
        case "email": wording("scope.email").text
        case "phone": wording("scope.phone").text
        case "offline_access": wording("scope.offline_access").text
        case "account": wording("scope.account").text
        default: wording("scope.other", ["scope": scope]).text
        }
    }
}
