import GatehouseProtocol

/// What a flow is for, with what only that journey keeps: a journey's data cannot be set on another's flow, and a
/// new journey is a new case that every switch over journeys must handle.
package enum Journey: Codable, Sendable, Equatable {
    /// Signing in; `appLogin` while the page shows a QR code for the authenticator app.
    case signIn(appLogin: PendingAppLogin?)
    /// Signing in to change two-step verification (`POST /flows/enrollment`); `done` once a change was made, after
    /// which the flow may finish.
    case enrollment(done: Bool)
    /// Creating an account (`POST /flows/registration`); `pending` once the form was accepted.
    case registration(pending: PendingRegistration?)
    /// Resetting a forgotten password: the account the identifier named (if any) and the channel its code went on.
    case recovery(candidateID: String?, channel: MessageChannel?)
    /// Unlocking an account paused by wrong passwords, with a code by email; back to signing in afterwards.
    case unlock(candidateID: String?)
    /// Signing in with a code sent by email instead of a password (`email_sign_in`): the address as typed, and the
    /// account whose verified address it is (if any). Without one, the code creates an account when registration is on.
    case emailSignIn(address: String, candidateID: String?)

    /// The journey a flow of `kind` starts with.
    package init(_ kind: FlowKind) {
        self =
            switch kind {
            case .login: .signIn(appLogin: nil)
            case .enrollment: .enrollment(done: false)
            case .registration: .registration(pending: nil)
            case .recovery: .recovery(candidateID: nil, channel: nil)
            }
    }

    /// The journey's name in audit events.
    package var name: String {
        switch self {
        case .signIn: "sign_in"
        case .enrollment: "enrollment"
        case .registration: "registration"
        case .recovery: "recovery"
        case .unlock: "unlock"
        case .emailSignIn: "email_sign_in"
        }
    }

    /// Whether finishing it proves the person may sign in again after wrong passwords: a new account, a reset
    /// password, a change of two-step verification.
    package var endsLockout: Bool {
        switch self {
        case .registration, .recovery, .enrollment: true
        case .signIn, .unlock, .emailSignIn: false
        }
    }
}

/// A QR code on the page, waiting for an authenticator app to approve it.
package struct PendingAppLogin: Codable, Sendable, Equatable {
    /// The session in ``AppLoginStore``.
    package var sessionID: String
    /// Its access code, sealed under the server secret (the database keeps only a digest).
    package var sealedAccessCode: String
    /// The node to go back to for "Sign in with a password instead".
    package var returnStep: FlowStep

    package init(sessionID: String, sealedAccessCode: String, returnStep: FlowStep) {
        self.sessionID = sessionID
        self.sealedAccessCode = sealedAccessCode
        self.returnStep = returnStep
    }
}

/// An account being registered: created only once its email (and phone, when given) is confirmed.
package struct PendingRegistration: Codable, Sendable, Equatable {
    package var username: String
    package var profile: UserProfile
    /// The password's hash, sealed under the server secret.
    package var sealedPasswordHash: String
    package var emailVerified: Bool
    package var phoneVerified: Bool
    /// The address already has an account: its owner was told instead, and no code can complete this one.
    package var emailTaken: Bool

    package init(username: String, profile: UserProfile, sealedPasswordHash: String, emailVerified: Bool, phoneVerified: Bool, emailTaken: Bool) {
        self.username = username
        self.profile = profile
        self.sealedPasswordHash = sealedPasswordHash
        self.emailVerified = emailVerified
        self.phoneVerified = phoneVerified
        self.emailTaken = emailTaken
    }
}
