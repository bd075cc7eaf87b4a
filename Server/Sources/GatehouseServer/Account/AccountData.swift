import GatehouseDomain

/// What the account page's download holds: the person's account as the admin API describes it, what they allowed
/// third-party applications, where they are signed in, their passkeys, authenticator apps and linked identities, and
/// their audit trail.
struct AccountData: Encodable, Sendable {
    var user: AdminUser
    var consents: [Consent]
    var browserSessions: [ActiveSessions.BrowserSessionSummary]
    var appSignIns: [ActiveSessions.Grant]
    var passkeys: [AdminPasskey]
    var identities: [FederatedIdentity]
    var devices: [AdminDevice]
    var events: [AuditEvent]

    enum CodingKeys: String, CodingKey {
        case user, consents, passkeys, identities, devices, events
        case browserSessions = "browser_sessions"
        case appSignIns = "app_sign_ins"
    }
}
