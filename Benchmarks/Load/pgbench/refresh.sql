-- What a refresh grant asks of PostgreSQL, statement for statement, on tables shaped like Gatehouse's: the client
-- looked up, the presented refresh token marked used (by its key, as the rotation's conditional UPDATE does), the
-- user read, a new refresh token and a new access token inserted, in one transaction. Keys of new tokens start with
-- the time, as Gatehouse's do, so inserts append to the index.
\set token random(1, 100000)
BEGIN;
SELECT id, secret_hash, scopes FROM bench_clients WHERE id = 'bench-app';
UPDATE bench_refresh SET used_at = extract(epoch FROM now())::bigint WHERE token_hash = 'seed-' || :token
    RETURNING grant_id, user_id, scope, auth_time, amr;
SELECT id, username, email, name FROM bench_users WHERE id = 'user-' || (:token % 1000);
INSERT INTO bench_refresh (token_hash, grant_id, client_id, user_id, scope, auth_time, amr, created_at, expires_at)
    VALUES (to_char(clock_timestamp(), 'YYYYMMDDHH24MISSUS') || md5(random()::text), 'g-' || :token, 'bench-app',
            'user-' || (:token % 1000), 'openid profile offline_access', 0, 'pwd', 0, 2000000000);
INSERT INTO bench_access (token_hash, grant_id, client_id, user_id, scope, created_at, expires_at)
    VALUES (to_char(clock_timestamp(), 'YYYYMMDDHH24MISSUS') || md5(random()::text), 'g-' || :token, 'bench-app',
            'user-' || (:token % 1000), 'openid profile offline_access', 0, 2000000000);
COMMIT;
