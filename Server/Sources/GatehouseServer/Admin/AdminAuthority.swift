import GatehouseDomain

/// How far the one acting through the admin operations may reach. A console operator changes what the console shows,
/// but never what would make them an admin: a client that holds (or would hold) an admin scope, or the email address,
/// phone number, factors or password of someone who holds a console role (whose account, taken over, would carry
/// that role). Only an admin does those.
public enum AdminAuthority: Sendable, Equatable {
    /// Every operation: the operator's terminal, the admin API (whose callers hold an admin scope or an admin token,
    /// and may give roles), and a person changing their own account on the account page or API.
    case full
    /// A person in the admin console, with their role.
    case console(AdminRole)

    /// Whether it may do what only an admin does.
    public var isAdmin: Bool {
        switch self {
        case .full: true
        case .console(let role): role == .admin
        }
    }
}
