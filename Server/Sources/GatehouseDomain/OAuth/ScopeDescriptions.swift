/// What each scope lets an application do, in the words a person reads before allowing it (the consent node, the
/// device confirmation).
package enum ScopeDescriptions {
    /// The plain-language description of `scope`.
    package static func describe(_ scope: String) -> String {
        switch scope {
        case "openid": "Know who you are"
        case "profile": "See your name and username"
        case "email": "See your email address"
        case "phone": "See your phone number"
        case "offline_access": "Stay signed in until you sign out"
        case "account": "See and manage your account: where you are signed in, the applications you allowed, your security events"
        default: "Use “\(scope)”"
        }
    }
}
