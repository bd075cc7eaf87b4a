import GatehouseProtocol
import SQLKit

/// Authorization requests that wait while the user signs in on the hosted page.
///
/// Each is known by an unguessable id (in the sign-in page's URL and form) and bound to the browser that
/// made it by a second secret in a cookie, so a sign-in form cannot be submitted from another browser.
/// Only SHA-256 digests of both are stored.
struct AuthorizationRequestStore: Sendable {
    let database: any Database
    let clock: UnixClock

    /// Stores `request` for `lifetime` seconds; returns its id.
    func save(_ request: AuthorizationRequest, browserBinding: String, lifetime: Int64) async throws -> String {
        let id = SecureRandom.token()
        let now = clock.now()
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM authorization_requests WHERE expires_at <= \(bind: now)").run()
            try await sql.raw("""
                INSERT INTO authorization_requests (id_hash, browser_binding_hash, client_id, redirect_uri, scope, state, nonce,
                    code_challenge, prompt, max_age, login_hint, created_at, expires_at)
                VALUES (\(bind: TokenDigest.hex(id)), \(bind: TokenDigest.hex(browserBinding)), \(bind: request.clientID),
                    \(bind: request.redirectURI), \(bind: request.scope), \(bind: request.state), \(bind: request.nonce),
                    \(bind: request.codeChallenge), \(bind: request.prompts.sorted().joined(separator: " ")), \(bind: request.maxAge),
                    \(bind: request.loginHint), \(bind: now), \(bind: now + lifetime))
                """).run()
        }
        return id
    }

    /// The unexpired request with this id, if the browser binding matches.
    func find(id: String, browserBinding: String?) async throws -> AuthorizationRequest? {
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw("""
                SELECT * FROM authorization_requests WHERE id_hash = \(bind: TokenDigest.hex(id)) AND expires_at > \(bind: now)
                """).first()
        }
        guard let row, let browserBinding,
              ConstantTime.equals(try row.decode(column: "browser_binding_hash", as: String.self), TokenDigest.hex(browserBinding))
        else { return nil }
        return AuthorizationRequest(
            clientID: try row.decode(column: "client_id", as: String.self),
            redirectURI: try row.decode(column: "redirect_uri", as: String.self),
            scopes: try row.decode(column: "scope", as: String.self).split(separator: " ").map(String.init),
            state: try row.decode(column: "state", as: String?.self),
            nonce: try row.decode(column: "nonce", as: String?.self),
            codeChallenge: try row.decode(column: "code_challenge", as: String?.self),
            prompts: Set((try row.decode(column: "prompt", as: String?.self) ?? "").split(separator: " ").map(String.init)),
            maxAge: try row.decode(column: "max_age", as: Int64?.self),
            loginHint: try row.decode(column: "login_hint", as: String?.self)
        )
    }

    /// Removes the request so it cannot complete twice. Returns whether it was still there.
    func consume(id: String) async throws -> Bool {
        try await database.transaction { sql in
            try await sql.raw("DELETE FROM authorization_requests WHERE id_hash = \(bind: TokenDigest.hex(id)) RETURNING id_hash").first() != nil
        }
    }
}
