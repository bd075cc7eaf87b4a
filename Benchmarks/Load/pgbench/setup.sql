-- Tables shaped like Gatehouse's for the refresh script: 1,000 users, one client, 100,000 refresh tokens.
DROP TABLE IF EXISTS bench_clients, bench_users, bench_refresh, bench_access;
CREATE TABLE bench_clients (id TEXT PRIMARY KEY, secret_hash TEXT, scopes TEXT NOT NULL);
CREATE TABLE bench_users (id TEXT PRIMARY KEY, username TEXT NOT NULL, email TEXT NOT NULL, name TEXT);
CREATE TABLE bench_refresh (token_hash TEXT PRIMARY KEY, grant_id TEXT NOT NULL, client_id TEXT NOT NULL, user_id TEXT NOT NULL,
    scope TEXT NOT NULL, auth_time BIGINT NOT NULL, amr TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
    used_at BIGINT, revoked_at BIGINT);
CREATE TABLE bench_access (token_hash TEXT PRIMARY KEY, grant_id TEXT, client_id TEXT NOT NULL, user_id TEXT, scope TEXT NOT NULL,
    created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, revoked_at BIGINT);
INSERT INTO bench_clients VALUES ('bench-app', NULL, 'openid profile offline_access');
INSERT INTO bench_users SELECT 'user-' || i, 'user' || i, 'user' || i || '@example.com', 'User ' || i FROM generate_series(0, 999) i;
INSERT INTO bench_refresh SELECT 'seed-' || i, 'g-' || i, 'bench-app', 'user-' || (i % 1000), 'openid profile offline_access', 0, 'pwd', 0,
    2000000000 FROM generate_series(1, 100000) i;
ANALYZE;
