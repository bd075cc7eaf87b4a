/// Every schema change Gatehouse has made, in order. Append new migrations at the end; never edit one.
///
/// The SQL is written in the subset SQLite and PostgreSQL share: `TEXT`, `INTEGER`, `BIGINT`,
/// timestamps as Unix seconds, flags as 0/1 integers, lists as JSON text.
package enum SchemaMigrations {
    package static let all: [Migration] = [
        Migration(
            version: 1, name: "identity foundation",
            statements: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    username TEXT NOT NULL UNIQUE,
                    email TEXT NOT NULL UNIQUE,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    name TEXT,
                    password_hash TEXT NOT NULL,
                    locked INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE clients (
                    id TEXT PRIMARY KEY,
                    name TEXT,
                    secret_hash TEXT,
                    redirect_uris TEXT NOT NULL,
                    post_logout_redirect_uris TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    id_token_algorithm TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY,
                    algorithm TEXT NOT NULL,
                    public_jwk TEXT NOT NULL,
                    sealed_private_key TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    retired_at BIGINT,
                    published_until BIGINT
                )
                """,
                """
                CREATE TABLE authorization_requests (
                    id_hash TEXT PRIMARY KEY,
                    browser_binding_hash TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    redirect_uri TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    state TEXT,
                    nonce TEXT,
                    code_challenge TEXT,
                    prompt TEXT,
                    max_age BIGINT,
                    login_hint TEXT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE browser_sessions (
                    id_hash TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    auth_time BIGINT NOT NULL,
                    amr TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE authorization_codes (
                    code_hash TEXT PRIMARY KEY,
                    grant_id TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    redirect_uri TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    nonce TEXT,
                    code_challenge TEXT,
                    auth_time BIGINT NOT NULL,
                    amr TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    consumed_at BIGINT
                )
                """,
                "CREATE INDEX authorization_codes_expiry ON authorization_codes(expires_at)",
                """
                CREATE TABLE access_tokens (
                    token_hash TEXT PRIMARY KEY,
                    grant_id TEXT,
                    client_id TEXT NOT NULL,
                    user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT
                )
                """,
                "CREATE INDEX access_tokens_grant ON access_tokens(grant_id)",
                """
                CREATE TABLE refresh_tokens (
                    token_hash TEXT PRIMARY KEY,
                    grant_id TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL,
                    auth_time BIGINT NOT NULL,
                    amr TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT,
                    revoked_at BIGINT
                )
                """,
                "CREATE INDEX refresh_tokens_grant ON refresh_tokens(grant_id)",
                """
                CREATE TABLE login_throttle (
                    subject_hash TEXT PRIMARY KEY,
                    failures INTEGER NOT NULL,
                    window_started_at BIGINT NOT NULL,
                    blocked_until BIGINT NOT NULL
                )
                """,
            ]),
        Migration(
            version: 2, name: "one active signing key per algorithm",
            statements: [
                "CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys(algorithm) WHERE retired_at IS NULL"
            ]),
        Migration(
            version: 3, name: "native flows",
            statements: [
                """
                CREATE TABLE flows (
                    id_hash TEXT PRIMARY KEY,
                    kind TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    state TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX flows_expiry ON flows(expires_at)",
            ]),
        // The hosted page now runs the same flows as apps; a browser flow is bound to a cookie instead of a client.
        Migration(
            version: 4, name: "hosted pages run flows",
            statements: [
                "ALTER TABLE flows ADD COLUMN browser_binding_hash TEXT",
                "DROP TABLE authorization_requests",
            ]),
        // Second factors: TOTP secrets sealed under the server secret, and single-use recovery codes (HMAC'd).
        Migration(
            version: 5, name: "second factors",
            statements: [
                """
                CREATE TABLE authenticators (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    sealed_secret TEXT NOT NULL,
                    parameters TEXT NOT NULL,
                    last_used_step BIGINT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX authenticators_user ON authenticators(user_id)",
                """
                CREATE TABLE recovery_codes (
                    code_hash TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    used_at BIGINT
                )
                """,
                "CREATE INDEX recovery_codes_user ON recovery_codes(user_id)",
            ]),
        // Profiles for self-registration, the password's age, one-time codes sent by email or SMS (bound to a flow),
        // and the courier's queue of messages to deliver.
        Migration(
            version: 6, name: "registration, delivered codes and the courier",
            statements: [
                "ALTER TABLE users ADD COLUMN given_name TEXT",
                "ALTER TABLE users ADD COLUMN family_name TEXT",
                "ALTER TABLE users ADD COLUMN phone_number TEXT",
                "ALTER TABLE users ADD COLUMN phone_verified INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE users ADD COLUMN password_changed_at BIGINT",
                "UPDATE users SET password_changed_at = created_at",
                """
                CREATE TABLE one_time_codes (
                    id TEXT PRIMARY KEY,
                    flow_hash TEXT NOT NULL,
                    purpose TEXT NOT NULL,
                    channel TEXT NOT NULL,
                    code_hash TEXT NOT NULL,
                    attempts INTEGER NOT NULL,
                    sends INTEGER NOT NULL,
                    last_sent_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    consumed_at BIGINT
                )
                """,
                "CREATE UNIQUE INDEX one_time_codes_flow ON one_time_codes(flow_hash, purpose)",
                """
                CREATE TABLE courier_messages (
                    id TEXT PRIMARY KEY,
                    channel TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    template TEXT NOT NULL,
                    sealed_content TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    last_error TEXT,
                    created_at BIGINT NOT NULL,
                    sent_at BIGINT
                )
                """,
                "CREATE INDEX courier_messages_due ON courier_messages(status, next_attempt_at)",
            ]),
        // Per-recipient send limits, and wrong codes counted in the database so concurrent guesses cannot share a count.
        Migration(
            version: 7, name: "send limits and counted code guesses",
            statements: [
                "CREATE INDEX courier_messages_recipient ON courier_messages(recipient, created_at)",
                "ALTER TABLE flows ADD COLUMN code_guesses INTEGER NOT NULL DEFAULT 0",
            ]),
        // The expiry sweeps that run beside inserts read these; without them each sweep scanned its whole table.
        Migration(
            version: 8, name: "indexes for expiry sweeps",
            statements: [
                "CREATE INDEX access_tokens_expiry ON access_tokens(expires_at)",
                "CREATE INDEX one_time_codes_expiry ON one_time_codes(expires_at)",
                "CREATE INDEX browser_sessions_expiry ON browser_sessions(expires_at)",
            ]),
        // Device identities of authenticator apps (a PIN-protected key per identity, an OPRF key per identity sealed under
        // the server secret, wrong PINs counted in the row) and the QR sign-in sessions they approve.
        Migration(
            version: 9, name: "device identities and QR sign-in",
            statements: [
                """
                CREATE TABLE device_identities (
                    id TEXT PRIMARY KEY,
                    secret_hash TEXT NOT NULL UNIQUE,
                    user_id TEXT,
                    email TEXT NOT NULL,
                    device_name TEXT,
                    state TEXT NOT NULL,
                    sealed_oprf_key TEXT NOT NULL,
                    public_key TEXT,
                    pin_failures INTEGER NOT NULL DEFAULT 0,
                    pin_evaluations INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    expires_at BIGINT,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX device_identities_user ON device_identities(user_id)",
                "CREATE INDEX device_identities_expiry ON device_identities(expires_at)",
                """
                CREATE TABLE app_logins (
                    id TEXT PRIMARY KEY,
                    code_hash TEXT NOT NULL UNIQUE,
                    flow_hash TEXT NOT NULL,
                    client_name TEXT NOT NULL,
                    status TEXT NOT NULL,
                    identity_id TEXT,
                    user_id TEXT,
                    challenge TEXT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX app_logins_flow ON app_logins(flow_hash)",
                "CREATE INDEX app_logins_expiry ON app_logins(expires_at)",
            ]),
        // Revoking a token family records its grant instead of marking every token of it, so the token tables
        // need no index on grant_id: each token issued had put an entry on a random page of two such indexes, the
        // largest part of a refresh's write. Existing tokens are held to the lifetimes now allowed at most
        // (one day, 366 days), which is how long a revocation is remembered.
        Migration(
            version: 10, name: "revoked grants instead of token indexes by grant",
            statements: [
                """
                CREATE TABLE revoked_grants (
                    grant_id TEXT PRIMARY KEY,
                    revoked_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX revoked_grants_expiry ON revoked_grants(expires_at)",
                "DROP INDEX access_tokens_grant",
                "DROP INDEX refresh_tokens_grant",
                "UPDATE access_tokens SET expires_at = created_at + 86400 WHERE expires_at > created_at + 86400",
                "UPDATE refresh_tokens SET expires_at = created_at + 31622400 WHERE expires_at > created_at + 31622400",
            ]),
        // Guesses counted per account, address and client address across flows and nodes (passwords, codes, TOTP,
        // recovery codes) with blocks that grow, in place of the per-name sign-in throttle; device registrations
        // counted per address.
        Migration(
            version: 11, name: "attempt counters across flows",
            statements: [
                """
                CREATE TABLE attempt_counters (
                    scope TEXT NOT NULL,
                    subject_hash TEXT NOT NULL,
                    failures INTEGER NOT NULL,
                    blocks INTEGER NOT NULL,
                    last_attempt_at BIGINT NOT NULL,
                    blocked_until BIGINT NOT NULL,
                    PRIMARY KEY (scope, subject_hash)
                )
                """,
                "CREATE INDEX attempt_counters_age ON attempt_counters(last_attempt_at)",
                "DROP TABLE login_throttle",
                "CREATE INDEX device_identities_email ON device_identities(email, created_at)",
            ]),
        // Browser sessions end after a while unused, beside their absolute lifetime.
        Migration(
            version: 12, name: "browser session idle timeout",
            statements: [
                "ALTER TABLE browser_sessions ADD COLUMN last_seen_at BIGINT NOT NULL DEFAULT 0",
                "UPDATE browser_sessions SET last_seen_at = created_at",
                "CREATE INDEX browser_sessions_last_seen ON browser_sessions(last_seen_at)",
            ]),
        // PKCE for every client unless an operator exempts a legacy confidential one (RFC 9700 §2.1.1). Clients
        // registered before keep what they had: public ones needed it, confidential ones did not.
        Migration(
            version: 13, name: "PKCE required per client",
            statements: [
                "ALTER TABLE clients ADD COLUMN require_pkce INTEGER NOT NULL DEFAULT 1",
                "UPDATE clients SET require_pkce = 0 WHERE secret_hash IS NOT NULL",
            ]),
        // A QR sign-in remembers who asked for it, for the approving app to show.
        Migration(
            version: 14, name: "QR sign-in requester",
            statements: [
                "ALTER TABLE app_logins ADD COLUMN requester_address TEXT",
                "ALTER TABLE app_logins ADD COLUMN requester_agent TEXT",
            ]),
        // Each write of a flow's state names the version it read, so of two submissions of one step only one lands.
        Migration(
            version: 15, name: "flow versions",
            statements: [
                "ALTER TABLE flows ADD COLUMN version INTEGER NOT NULL DEFAULT 0"
            ]),
        Migration(
            version: 16, name: "declined enrollment offers",
            statements: [
                "ALTER TABLE users ADD COLUMN enrollment_declined_at BIGINT"
            ]),
        // A phone number or an email address enrolled as a second factor: at most one of each per account.
        Migration(
            version: 17, name: "phone and email as enrolled factors",
            statements: [
                "CREATE UNIQUE INDEX authenticators_one_contact ON authenticators(user_id, kind) WHERE kind IN ('phone', 'email')"
            ]),
        // Passkeys: each credential's public key (COSE, base64url), counter and flags; credential ids unique across users.
        // Each user gets a random WebAuthn user handle, never the user id, the first time a passkey is made.
        Migration(
            version: 18, name: "passkeys",
            statements: [
                """
                CREATE TABLE passkeys (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    credential_id TEXT NOT NULL UNIQUE,
                    public_key TEXT NOT NULL,
                    sign_count BIGINT NOT NULL,
                    aaguid TEXT NOT NULL,
                    user_verified INTEGER NOT NULL,
                    backup_eligible INTEGER NOT NULL,
                    backed_up INTEGER NOT NULL,
                    attestation TEXT NOT NULL,
                    transports TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT
                )
                """,
                "CREATE INDEX passkeys_user ON passkeys(user_id)",
                "ALTER TABLE users ADD COLUMN passkey_user_handle TEXT",
                "CREATE UNIQUE INDEX users_passkey_user_handle ON users(passkey_user_handle)",
            ]),
        // Identities at other providers linked to accounts: (provider, subject) belongs to one account.
        Migration(
            version: 19, name: "federated identities",
            statements: [
                """
                CREATE TABLE federated_identities (
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email TEXT,
                    sealed_tokens TEXT,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT,
                    PRIMARY KEY (provider, subject)
                )
                """,
                "CREATE INDEX federated_identities_user ON federated_identities(user_id)",
            ]),
        // The audit trail: security-relevant events, written in the transaction of the change they describe.
        Migration(
            version: 20, name: "audit trail",
            statements: [
                """
                CREATE TABLE audit_events (
                    id TEXT PRIMARY KEY,
                    type TEXT NOT NULL,
                    occurred_at BIGINT NOT NULL,
                    actor TEXT NOT NULL,
                    user_id TEXT,
                    client_id TEXT,
                    address TEXT,
                    user_agent TEXT,
                    request_id TEXT,
                    details TEXT NOT NULL
                )
                """,
                "CREATE INDEX audit_events_time ON audit_events(occurred_at)",
                "CREATE INDEX audit_events_user ON audit_events(user_id, id)",
                "CREATE INDEX audit_events_type ON audit_events(type, id)",
            ]),
        // Personal admin tokens for the admin API, kept as digests.
        Migration(
            version: 21, name: "admin tokens",
            statements: [
                """
                CREATE TABLE admin_tokens (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    read_only INTEGER NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    last_used_at BIGINT
                )
                """
            ]),
        // How far the audit webhook has delivered: one row, moved forward after each accepted batch.
        Migration(
            version: 22, name: "audit webhook progress",
            statements: [
                """
                CREATE TABLE audit_delivery (
                    id INTEGER PRIMARY KEY,
                    last_event_id TEXT,
                    failures INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL
                )
                """
            ]),
        // Expired refresh tokens are swept in batches (``ExpiredRowSweep``); expiry times grow with issue times, so
        // the index's inserts append. Readiness writes a row per node (``WriteProbe``), so a node that cannot commit
        // stops being ready.
        Migration(
            version: 23, name: "sweeps and the write probe",
            statements: [
                "CREATE INDEX refresh_tokens_expiry ON refresh_tokens(expires_at)",
                "CREATE INDEX courier_messages_created ON courier_messages(created_at)",
                "CREATE TABLE write_probe (node TEXT PRIMARY KEY, written_at BIGINT NOT NULL)",
            ]),
        // The device authorization grant (RFC 8628): a device's codes, kept only as digests, until the user answers
        // on the `/device` page and the device collects its tokens. A client uses the grant only when allowed to.
        Migration(
            version: 24, name: "device authorizations",
            statements: [
                """
                CREATE TABLE device_authorizations (
                    id TEXT PRIMARY KEY,
                    device_code_hash TEXT NOT NULL UNIQUE,
                    user_code_hash TEXT NOT NULL UNIQUE,
                    client_id TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    status TEXT NOT NULL,
                    user_id TEXT,
                    auth_time BIGINT,
                    amr TEXT,
                    poll_interval BIGINT NOT NULL,
                    last_polled_at BIGINT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX device_authorizations_expiry ON device_authorizations(expires_at)",
                "ALTER TABLE clients ADD COLUMN device_grant INTEGER NOT NULL DEFAULT 0",
            ]),
        // DPoP (RFC 9449): tokens bound to a key's thumbprint, clients that must bind theirs, and each proof's jti
        // until the proof is too old to be accepted anyway.
        Migration(
            version: 25, name: "DPoP",
            statements: [
                "ALTER TABLE access_tokens ADD COLUMN jkt TEXT",
                "ALTER TABLE refresh_tokens ADD COLUMN jkt TEXT",
                "ALTER TABLE clients ADD COLUMN require_dpop INTEGER NOT NULL DEFAULT 0",
                "CREATE TABLE dpop_proofs (proof_hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
                "CREATE INDEX dpop_proofs_expiry ON dpop_proofs(expires_at)",
            ]),
        // DPoP authorization code binding (RFC 9449 §10): the key thumbprint the authorization request named.
        Migration(version: 26, name: "DPoP-bound authorization codes", statements: ["ALTER TABLE authorization_codes ADD COLUMN dpop_jkt TEXT"]),
        // Pushed authorization requests (RFC 9126), until the browser brings their reference.
        Migration(
            version: 27, name: "pushed authorization requests",
            statements: [
                """
                CREATE TABLE pushed_authorization_requests (
                    request_uri_hash TEXT PRIMARY KEY,
                    client_id TEXT NOT NULL,
                    request TEXT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX pushed_authorization_requests_expiry ON pushed_authorization_requests(expires_at)",
            ]),
        // A used refresh token keeps its successor's ordered prefix (the successor's issue time, not a secret), from
        // which and a keyed digest of the token the successor is worked out again: a client retrying a rotation whose
        // answer it never received gets the same successor instead of a revoked family.
        Migration(version: 28, name: "refresh token successors", statements: ["ALTER TABLE refresh_tokens ADD COLUMN successor_prefix TEXT"]),
        // A flow's own count of code checks (bounded by max_code_attempts) had the name of the configuration's limit per
        // account across flows (code_guesses): two different counters, now two names.
        Migration(version: 29, name: "flow code checks", statements: ["ALTER TABLE flows RENAME COLUMN code_guesses TO code_checks"]),
        // Third-party clients ask people before they get a code; what a person allowed a client is kept per user and
        // client, the scopes allowed so far in one space-separated column (no reference to clients: the demo client is
        // replaced at every start, and its people's consents stay; deleting a client deletes them).
        Migration(
            version: 30, name: "consent",
            statements: [
                "ALTER TABLE clients ADD COLUMN third_party INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE clients ADD COLUMN logo_uri TEXT",
                "ALTER TABLE clients ADD COLUMN client_uri TEXT",
                """
                CREATE TABLE consents (
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    client_id TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    granted_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, client_id)
                )
                """,
            ]),
        // An access token keeps when and how its sign-in was made, so that a resource can ask for a recent one (the
        // account API's step-up, RFC 9470) without a refresh token to read it from. Tokens from before stay NULL:
        // they count as not recent.
        Migration(
            version: 31, name: "access token sign-in time",
            statements: ["ALTER TABLE access_tokens ADD COLUMN auth_time BIGINT", "ALTER TABLE access_tokens ADD COLUMN amr TEXT"]),
        // A browser session keeps where it signed in from (the client address and the browser's own name), so the
        // person can tell their sessions apart on the account page. Sessions from before stay NULL.
        Migration(
            version: 32, name: "browser session origin",
            statements: ["ALTER TABLE browser_sessions ADD COLUMN address TEXT", "ALTER TABLE browser_sessions ADD COLUMN user_agent TEXT"]),
        // Resources (APIs, RFC 8707): a grant remembers the resources its authorization named, and an access token the
        // one it was issued for (its audience); NULL is the server's own endpoints, as every token before was.
        Migration(
            version: 33, name: "resources",
            statements: [
                """
                CREATE TABLE resources (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    token_format TEXT NOT NULL,
                    access_token_lifetime BIGINT,
                    require_dpop INTEGER NOT NULL DEFAULT 0,
                    allowed_clients TEXT NOT NULL,
                    introspection_clients TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "ALTER TABLE authorization_codes ADD COLUMN resources TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE refresh_tokens ADD COLUMN resources TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE access_tokens ADD COLUMN audience TEXT",
                "CREATE INDEX access_tokens_audience ON access_tokens(audience) WHERE audience IS NOT NULL",
            ]),
        // Clients that register themselves (RFC 7591, RFC 7592): marked dynamic, with their registration (the digest of
        // the token that reads, changes and deletes it, and the metadata as registered), an expiry for openly
        // registered ones until first used, and the initial access tokens operators hand out.
        Migration(
            version: 34, name: "dynamic client registration",
            statements: [
                "ALTER TABLE clients ADD COLUMN dynamic INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE clients ADD COLUMN unused_expires_at BIGINT",
                "CREATE INDEX clients_unused_expiry ON clients(unused_expires_at) WHERE unused_expires_at IS NOT NULL",
                """
                CREATE TABLE client_registrations (
                    client_id TEXT PRIMARY KEY REFERENCES clients(id) ON DELETE CASCADE,
                    token_hash TEXT NOT NULL,
                    metadata TEXT NOT NULL,
                    open INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE initial_access_tokens (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    max_uses INTEGER,
                    uses INTEGER NOT NULL DEFAULT 0,
                    last_used_at BIGINT
                )
                """,
            ]),
        // Token exchange (RFC 8693): what a client may exchange for (its policy), and the actors a token names (`act`),
        // most recent first.
        Migration(
            version: 35, name: "token exchange",
            statements: ["ALTER TABLE clients ADD COLUMN token_exchange TEXT", "ALTER TABLE access_tokens ADD COLUMN act TEXT"]),
        // Clients known by the URL of their metadata document: the row is the document's cached copy, fetched again once
        // this time passes.
        Migration(version: 36, name: "client metadata documents", statements: ["ALTER TABLE clients ADD COLUMN document_expires_at BIGINT"]),
        // Clients that authenticate with a key (private_key_jwt, RFC 7523): where their public keys are, or the keys.
        Migration(
            version: 37, name: "client keys", statements: ["ALTER TABLE clients ADD COLUMN jwks_uri TEXT", "ALTER TABLE clients ADD COLUMN jwks TEXT"]),
        // How each client authenticates (token_endpoint_auth_method; NULL: as its secret or keys imply), and, for
        // client_secret_jwt, its secret sealed under the server secret: the server computes the assertion's MAC too.
        Migration(
            version: 38, name: "client authentication methods",
            statements: ["ALTER TABLE clients ADD COLUMN auth_method TEXT", "ALTER TABLE clients ADD COLUMN secret_sealed TEXT"]),
        // Logout notifications (OpenID Connect Back-Channel and Front-Channel Logout 1.0): each browser session has a
        // public id (`sid`, in ID tokens) that its codes and refresh tokens carry; the clients a session signed in to
        // are remembered until it ends, and then each with a back-channel logout URI is queued a logout token, delivered
        // by any node and retried.
        Migration(
            version: 39, name: "logout notifications",
            statements: [
                "ALTER TABLE browser_sessions ADD COLUMN sid TEXT",
                "ALTER TABLE authorization_codes ADD COLUMN sid TEXT",
                "ALTER TABLE refresh_tokens ADD COLUMN sid TEXT",
                "ALTER TABLE clients ADD COLUMN backchannel_logout_uri TEXT",
                "ALTER TABLE clients ADD COLUMN frontchannel_logout_uri TEXT",
                """
                CREATE TABLE session_clients (
                    sid TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (sid, client_id)
                )
                """,
                "CREATE INDEX session_clients_user ON session_clients(user_id)",
                "CREATE INDEX browser_sessions_sid ON browser_sessions(sid)",
                """
                CREATE TABLE logout_notifications (
                    sid TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    PRIMARY KEY (sid, client_id)
                )
                """,
                "CREATE INDEX logout_notifications_due ON logout_notifications(next_attempt_at)",
            ]),
        // The `claims` request parameter (OpenID Connect Core §5.5): what a relying party asked for by name travels with
        // the code and the tokens; and the postal address the `address` claim carries.
        Migration(
            version: 40, name: "requested claims and addresses",
            statements: [
                "ALTER TABLE users ADD COLUMN address TEXT",
                "ALTER TABLE authorization_codes ADD COLUMN claims TEXT",
                "ALTER TABLE refresh_tokens ADD COLUMN claims TEXT",
                "ALTER TABLE access_tokens ADD COLUMN claims TEXT",
            ]),
        // Clients that must sign every authorization request (JAR, RFC 9101) or push it first (PAR, RFC 9126).
        Migration(
            version: 41, name: "signed and pushed authorization requests per client",
            statements: [
                "ALTER TABLE clients ADD COLUMN require_signed_request INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE clients ADD COLUMN require_par INTEGER NOT NULL DEFAULT 0",
                // The security profile a client is held to (fapi2), NULL for none.
                "ALTER TABLE clients ADD COLUMN profile TEXT",
            ]),
        // Push approval: where a device identity's pushes go, and the number a pushed sign-in shows in the browser with
        // the three the app offers (fixed per session, so asking twice reveals nothing).
        Migration(
            version: 42, name: "push approval with number matching",
            statements: [
                "ALTER TABLE device_identities ADD COLUMN push_platform TEXT",
                "ALTER TABLE device_identities ADD COLUMN push_token TEXT",
                "ALTER TABLE app_logins ADD COLUMN number INTEGER",
                "ALTER TABLE app_logins ADD COLUMN number_choices TEXT",
            ]),
        // Keys the rotation schedule makes ahead: published at once, signing from activates_at (NULL: from created_at).
        Migration(
            version: 43, name: "signing keys published ahead",
            statements: [
                "ALTER TABLE signing_keys ADD COLUMN activates_at BIGINT"
            ]),
        // The algorithm of each resource's JWT access tokens; RS256 until an operator chooses ES256.
        Migration(
            version: 44, name: "resources' token signing algorithm",
            statements: [
                "ALTER TABLE resources ADD COLUMN token_alg TEXT NOT NULL DEFAULT 'RS256'"
            ]),
        // How far each reader of the audit trail has delivered, by channel: `audit` (the audit webhook, moved here from
        // its one-row table) and `hook:ID` for each hook at `events`.
        Migration(
            version: 45, name: "event delivery per channel",
            statements: [
                """
                CREATE TABLE event_deliveries (
                    channel TEXT PRIMARY KEY,
                    last_event_id TEXT,
                    failures INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL
                )
                """,
                """
                INSERT INTO event_deliveries (channel, last_event_id, failures, next_attempt_at)
                SELECT 'audit', last_event_id, failures, next_attempt_at FROM audit_delivery WHERE id = 1
                """,
                "DROP TABLE audit_delivery",
            ]),
        // People who may use the admin console, each with one role (viewer, operator, admin).
        Migration(
            version: 46, name: "admin console roles",
            statements: [
                """
                CREATE TABLE admin_roles (
                    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    role TEXT NOT NULL,
                    granted_at BIGINT NOT NULL,
                    granted_by TEXT NOT NULL
                )
                """
            ]),
        // The claims the hooks at `tokens` add to userinfo for an access token (a JSON object), read back at /userinfo.
        Migration(version: 47, name: "userinfo claims from hooks", statements: ["ALTER TABLE access_tokens ADD COLUMN hook_claims TEXT"]),
        // The language the person chose on the account page (a BCP 47 tag); pages and messages to them use it.
        Migration(version: 48, name: "the person's language", statements: ["ALTER TABLE users ADD COLUMN locale TEXT"]),
    ]
}
