import Foundation
import GatehouseProtocol
import SQLKit

/// Flows in the database, so any server node can answer the next step. Each is known by an unguessable
/// id (stored as a digest) and bound to who started it: an app's flow to its client, a hosted page's
/// flow to a secret in the browser's cookie (so a flow id seen in a URL is useless elsewhere).
struct FlowStore: Sendable {
    let database: any Database
    let clock: UnixClock

    /// Who may continue a flow.
    enum Owner: Sendable {
        /// An app, continuing through the JSON API with its client id.
        case client(String)
        /// A browser, continuing through the hosted page with the secret from its cookie.
        case browser(binding: String)
    }

    /// What a login flow remembers between steps.
    struct LoginState: Codable, Sendable, Equatable {
        var request: AuthorizationRequest
        /// The node the flow is at.
        var step: FlowStep
        var username: String?
        /// The client's display name, shown on every node.
        var clientName: String?
        /// Set once the password is verified: whose sign-in this is.
        var userID: String?
        /// The `amr` values earned so far.
        var methods: [String]?
        /// The second factors the user may choose from.
        var factors: [SecondFactor]?
        /// A TOTP secret being enrolled, sealed under the server secret.
        var pendingSecret: String?
        /// Recovery codes to show once after enrollment, sealed under the server secret.
        var pendingRecoveryCodes: String?
        /// What the flow is for; `nil` is a sign-in.
        var journey: FlowKind?
        /// The channel the last code of this flow went out on, and where to (masked, for the node's text).
        var channel: MessageChannel?
        var sentTo: String?
        /// After a delivered code, enroll TOTP: policy requires one and the user has none (the code proves it's them first).
        var enrollAfterCode: Bool?
        /// The account a recovery or unlock is for, when the identifier names one; never shown.
        var candidateID: String?
        /// Sign-in was refused for too many failures: the node offers unlocking by email code.
        var lockedOut: Bool?
        /// The password was set in this flow, or its expiry warning was seen: no expiry check before finishing.
        var passwordSettled: Bool?
        /// An enrollment journey made its change (a new authenticator or new recovery codes): it may finish.
        var enrollmentDone: Bool?
        /// A registration waiting for its codes.
        var registration: PendingRegistration?
        /// The QR sign-in the page shows, when the person chose "Sign in with the app".
        var appLogin: PendingAppLogin?
        /// The version of the stored flow this state was read at (a column, not part of the stored state): a write
        /// lands only on that version, so two submissions of one step cannot both move the flow on.
        var version = 0

        /// Flows stored before steps were typed said `nodeID`; the stored form keeps that name.
        enum CodingKeys: String, CodingKey {
            case step = "nodeID"
            case request, username, clientName, userID, methods, factors, pendingSecret, pendingRecoveryCodes
            case journey, channel, sentTo, enrollAfterCode, candidateID, lockedOut, passwordSettled, enrollmentDone
            case registration, appLogin
        }
    }

    /// A QR code on the page, waiting for an authenticator app to approve it.
    struct PendingAppLogin: Codable, Sendable, Equatable {
        /// The session in ``AppLoginStore``.
        var sessionID: String
        /// Its access code, sealed under the server secret (the database keeps only a digest).
        var sealedAccessCode: String
        /// The node to go back to for "Sign in with a password instead".
        var returnStep: FlowStep

        enum CodingKeys: String, CodingKey {
            case sessionID, sealedAccessCode
            case returnStep = "returnNodeID"
        }
    }

    /// An account being registered: created only once its email (and phone, when given) is confirmed.
    struct PendingRegistration: Codable, Sendable, Equatable {
        var username: String
        var profile: UserProfile
        /// The password's hash, sealed under the server secret.
        var sealedPasswordHash: String
        var emailVerified: Bool
        var phoneVerified: Bool
        /// The address already has an account: its owner was told instead, and no code can complete this one.
        var emailTaken: Bool
    }

    func create(_ state: LoginState, owner: Owner, lifetime: Int64) async throws -> String {
        let id = SecureRandom.token()
        let now = clock.now()
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let bindingHash: String? = if case .browser(let binding) = owner { TokenDigest.hex(binding) } else { nil }
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM flows WHERE expires_at <= \(bind: now)").run()
            try await sql.raw(
                """
                INSERT INTO flows (id_hash, kind, client_id, state, created_at, expires_at, browser_binding_hash)
                VALUES (\(bind: TokenDigest.hex(id)), 'login', \(bind: state.request.clientID), \(bind: encoded), \(bind: now),
                    \(bind: now + lifetime), \(bind: bindingHash))
                """
            ).run()
        }
        return id
    }

    /// The flow's state, if it exists, has not expired and belongs to `owner`.
    func find(_ id: String, owner: Owner) async throws -> LoginState? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT state, client_id, browser_binding_hash, version FROM flows
                WHERE id_hash = \(bind: TokenDigest.hex(id)) AND expires_at > \(bind: now)
                """
            ).first()
        }
        guard let row else { return nil }
        let bindingHash = try row.decode(column: "browser_binding_hash", as: String?.self)
        switch owner {
        case .client(let clientID):
            guard bindingHash == nil, try row.decode(column: "client_id", as: String.self) == clientID else { return nil }
        case .browser(let binding):
            guard let bindingHash, ConstantTime.equals(bindingHash, TokenDigest.hex(binding)) else { return nil }
        }
        var state = try JSONDecoder().decode(LoginState.self, from: Data(try row.decode(column: "state", as: String.self).utf8))
        state.version = try row.decode(column: "version", as: Int.self)
        return state
    }

    /// Another submission moved the flow on since this one read it; nothing of this one's state was written.
    struct Superseded: Error, Sendable {}

    /// Writes `state` over the version it was read at.
    /// - Throws: ``Superseded`` when another submission wrote the flow first (or finished it).
    func update(_ id: String, to state: LoginState) async throws {
        let encoded = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let written = try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE flows SET state = \(bind: encoded), version = version + 1
                WHERE id_hash = \(bind: TokenDigest.hex(id)) AND version = \(bind: state.version) RETURNING version
                """
            ).first() != nil
        }
        guard written else { throw Superseded() }
    }

    /// Counts one code check against the flow before it happens, in one conditional statement: however many
    /// submissions arrive at once, at most `limit` codes are checked without a right one in between.
    /// - Returns: the checks counted so far including this one, or `nil` when the limit is used up (or the flow is gone).
    func takeGuess(_ id: String, limit: Int) async throws -> Int? {
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE flows SET code_guesses = code_guesses + 1
                WHERE id_hash = \(bind: TokenDigest.hex(id)) AND code_guesses < \(bind: limit) RETURNING code_guesses
                """
            ).first().map { try $0.decode(column: "code_guesses", as: Int.self) }
        }
    }

    /// A right code: the flow's count of code checks starts again for its next code.
    func clearGuesses(_ id: String) async throws {
        try await database.transaction { sql in
            try await sql.raw("UPDATE flows SET code_guesses = 0 WHERE id_hash = \(bind: TokenDigest.hex(id))").run()
        }
    }

    /// Ends the flow; only one caller gets `true`, so a flow completes once even when submitted twice at once.
    /// With `version`, only while the flow is still at that version: a sign-in finishes from the step it was read at.
    func finish(_ id: String, at version: Int? = nil) async throws -> Bool {
        try await database.transaction { sql in
            if let version {
                try await sql.raw(
                    """
                    DELETE FROM flows WHERE id_hash = \(bind: TokenDigest.hex(id)) AND version = \(bind: version) RETURNING id_hash
                    """
                ).first() != nil
            } else {
                try await sql.raw("DELETE FROM flows WHERE id_hash = \(bind: TokenDigest.hex(id)) RETURNING id_hash").first() != nil
            }
        }
    }
}

extension FlowStore.LoginState {
    /// The same flow back at the sign-in node with everything else forgotten (a journey cancelled, an account
    /// unlocked), still at the version it was read at so that writing it is checked like any other submission.
    func backToSignIn(username: String?) -> Self {
        var fresh = Self(request: request, step: .credentials, username: username, clientName: clientName)
        fresh.version = version
        return fresh
    }
}
