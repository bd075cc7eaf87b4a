/// What an audit event records: a stable name (`sign_in.failed`) that queries, exports and SIEM rules can rely on.
public enum AuditEventType: String, Sendable, Codable, CaseIterable {
    // Signing in.
    case signInSucceeded = "sign_in.succeeded"
    case signInFailed = "sign_in.failed"
    /// A wrong code (TOTP, a delivered code, a recovery code, a passkey that failed its checks).
    case codeRejected = "code.rejected"
    case accountLockedOut = "account.locked_out"
    case accountUnlocked = "account.unlocked"
    // Accounts and their credentials.
    case accountCreated = "account.created"
    case accountDeleted = "account.deleted"
    case accountLocked = "account.locked"
    /// An operator changed the profile; `details` has each changed field's `before` and `after`.
    case accountUpdated = "account.updated"
    case passwordChanged = "password.changed"
    case passwordReset = "password.reset"
    case passwordChangeRequired = "password.change_required"
    case factorEnrolled = "factor.enrolled"
    case factorRemoved = "factor.removed"
    case recoveryCodeUsed = "recovery_code.used"
    case identityLinked = "identity.linked"
    case identityUnlinked = "identity.unlinked"
    // Tokens.
    case refreshTokenReused = "refresh_token.reused"
    case authorizationCodeReplayed = "authorization_code.replayed"
    case tokenRevoked = "token.revoked"
    /// A client exchanged a person's token for one for another resource (RFC 8693); `details.mode` is `delegation`
    /// (the new token names the client in `act`) or `impersonation`.
    case tokenExchanged = "token.exchanged"
    /// A browser session ended by an operator.
    case sessionEnded = "session.ended"
    /// A client was told, on its back-channel logout URI, that a person signed out (`details.sid`, `details.attempts`).
    case logoutNotified = "logout.notified"
    /// A client's back-channel logout URI failed every attempt; the notification was given up (`details.error`).
    case logoutNotificationFailed = "logout.notification_failed"
    // Devices, clients, keys, the server.
    case deviceIdentityRegistered = "device_identity.registered"
    case deviceIdentityBlocked = "device_identity.blocked"
    case clientCreated = "client.created"
    /// A client registered itself (RFC 7591); `details.initial_token` names the initial access token it used, if any.
    case clientRegistered = "client.registered"
    case clientDeleted = "client.deleted"
    /// An operator changed a client's settings; `details` has each changed field's `before` and `after`.
    case clientUpdated = "client.updated"
    case clientSecretRotated = "client.secret_rotated"
    /// An operator registered, changed or removed a resource (an API, RFC 8707); `details.resource` names it.
    case resourceCreated = "resource.created"
    case resourceUpdated = "resource.updated"
    case resourceDeleted = "resource.deleted"
    /// An operator made or revoked an initial access token for registering clients (RFC 7591).
    case registrationTokenCreated = "registration_token.created"
    case registrationTokenRevoked = "registration_token.revoked"
    case deviceIdentityUnblocked = "device_identity.unblocked"
    case deviceIdentityDeleted = "device_identity.deleted"
    /// A sign-in pushed to an authenticator app was denied there: a wrong number picked (`reason=wrong_number`), or
    /// reported by the person as not theirs (`reason=reported`).
    case pushDenied = "push.denied"
    case keysRotated = "keys.rotated"
    /// The next signing key of an algorithm was made on the rotation schedule: published now, signing from
    /// `details.activates_at`, when the current key (`details.retires`) stops signing.
    case keyScheduled = "key.scheduled"
    /// A retired signing key left the JWKS: every token it signed has expired, or an operator withdrew it at once
    /// (`details.by` is `withdrawn`).
    case keyRemoved = "key.removed"
    /// An operator took a backup (`details.file`, the copy's `details.rows`), or restored one into this database.
    case databaseBackedUp = "database.backed_up"
    case databaseRestored = "database.restored"
    case adminTokenCreated = "admin_token.created"
    case adminTokenRevoked = "admin_token.revoked"
    /// A person was given a role in the admin console (`details.role`), or a different one.
    case adminRoleGranted = "admin_role.granted"
    /// A person's role in the admin console was taken away (`details.role`, the one they had).
    case adminRoleRevoked = "admin_role.revoked"
    case configurationLoaded = "configuration.loaded"
    // The device authorization grant (RFC 8628): the user's answer on the `/device` page.
    case deviceAuthorizationApproved = "device_authorization.approved"
    case deviceAuthorizationDenied = "device_authorization.denied"
    // Consent to a third-party client: allowed (the scopes added), denied on the consent node, revoked with its tokens.
    case consentGranted = "consent.granted"
    case consentDenied = "consent.denied"
    case consentRevoked = "consent.revoked"
}
