"""The operator's command-line tool: readable output, --json for scripts, clear errors with a non-zero exit."""
import base64
import hashlib
import json
import os

import requests
from gatehouse_harness import start, submit



def test_user_and_client_management(server):
    result = server.cli("users", "add", "erin", "--email", "Erin@Example.com", "--name", "Erin E", "--password-stdin", "--json",
                        stdin="a long enough password\n")
    created = json.loads(result.stdout)
    assert created["username"] == "erin" and created["email"] == "erin@example.com"
    assert "password_hash" not in result.stdout

    listed = json.loads(server.cli("users", "list", "--json").stdout)
    assert "erin" in [user["username"] for user in listed]
    assert all("password" not in json.dumps(user) for user in listed)
    table = server.cli("users", "list").stdout
    assert table.splitlines()[0].split() == ["USERNAME", "EMAIL", "NAME", "STATUS", "ID"]

    server.cli("users", "lock", "erin")
    assert [u for u in json.loads(server.cli("users", "list", "--json").stdout) if u["username"] == "erin"][0]["locked"] is True
    server.cli("users", "unlock", "erin")
    server.cli("users", "delete", "erin")
    assert "erin" not in server.cli("users", "list").stdout

    generated = json.loads(server.cli("clients", "add", "cli-made", "--redirect-uri", "https://app.example.com/cb",
                                      "--generate-secret", "--scope", "openid", "email", "--json").stdout)
    secret = generated["client_secret"]
    assert len(secret) >= 43 and generated["client"]["type"] == "confidential"
    token = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials"}, auth=("cli-made", secret), timeout=10)
    assert token.status_code == 200
    clients = server.cli("clients", "list", "--json").stdout
    assert "cli-made" in clients and secret not in clients and "secret_hash" not in clients
    server.cli("clients", "delete", "cli-made")
    assert requests.post(server.issuer + "/token", data={"grant_type": "client_credentials"}, auth=("cli-made", secret),
                         timeout=10).status_code == 401


def test_bad_input_gets_a_clear_message_and_non_zero_exit(server):
    cases = [
        (["users", "lock", "no-such-user"], None, "There is no user named no-such-user"),
        (["users", "delete", "no-such-user"], None, "There is no user named no-such-user"),
        (["users", "add", "alice", "--email", "a2@example.com", "--password-stdin"], "another password", "already exists"),
        (["users", "add", "frank", "--email", "frank@example.com", "--password-stdin"], "\n", "password is empty"),
        (["users", "add", "frank", "--email", "frank@example.com", "--password-stdin"], "short", "at least 8 characters"),
        (["users", "add", "frank", "--email", "frank@example.com", "--password-stdin"], "qwertyuiop", "most common"),
        (["users", "add", "frank", "--email", "frank@example.com", "--password-stdin"], "frank's password", "must not contain your username"),
        (["users", "add", "frank", "--email", "not-an-email", "--password-stdin"], "long enough pw", "is not valid"),
        (["users", "add", "frank", "--email", "frank@example.com"], "long enough pw", "--password-stdin"),
        (["clients", "add", "web", "--redirect-uri", "https://x.example/cb", "--generate-secret"], None, "already exists"),
        (["clients", "add", "bad-uri", "--redirect-uri", "not a uri", "--public"], None, "not an absolute URI"),
        (["clients", "add", "bad-uri", "--redirect-uri", "http://example.com/cb", "--public"], None, "use https"),
        (["clients", "add", "bad-uri", "--redirect-uri", "https://x.example/cb#frag", "--public"], None, "fragment"),
        (["clients", "add", "no-type", "--redirect-uri", "https://x.example/cb"], None, "exactly one of"),
        (["clients", "add", "short", "--redirect-uri", "https://x.example/cb", "--secret-stdin"], "too-short", "at least 32"),
        (["clients", "add", "alg", "--redirect-uri", "https://x.example/cb", "--public", "--id-token-alg", "HS256"], None, "RS256, ES256"),
        (["clients", "delete", "no-such-client"], None, "There is no client"),
    ]
    for args, stdin, message in cases:
        result = server.cli(*args, stdin=stdin, check=False)
        assert result.returncode != 0, args
        assert message in result.stderr, (args, result.stderr)
        assert "Fatal error" not in result.stderr and "Stack dump" not in result.stderr


def test_unusable_database_and_config_are_reported(tmp_path):
    from gatehouse_harness import binary
    import subprocess
    missing_folder = subprocess.run([binary(), "users", "list", "--database", str(tmp_path / "nope" / "db.sqlite")],
                                    capture_output=True, text=True, timeout=60)
    assert missing_folder.returncode != 0 and "does not exist" in missing_folder.stderr
    other = subprocess.run([binary(), "users", "list", "--database", "mysql://user:pw@localhost/db"],
                           capture_output=True, text=True, timeout=60)
    assert other.returncode != 0 and "not supported" in other.stderr and "pw" not in other.stderr
    no_secret = subprocess.run([binary(), "users", "list", "--database", "postgres://user:pw@127.0.0.1:1/db"],
                               capture_output=True, text=True, timeout=60)
    assert no_secret.returncode != 0 and "same server secret" in no_secret.stderr
    unreachable = subprocess.run([binary(), "users", "list", "--database", "postgres://user:pw@127.0.0.1:1/db?sslmode=disable"],
                                 capture_output=True, text=True, timeout=60, env=dict(os.environ, GATEHOUSE_SECRET="s" * 40))
    assert unreachable.returncode != 0
    assert "Cannot open the database at postgres://…@127.0.0.1:1/db" in unreachable.stderr and ":pw@" not in unreachable.stderr
    config = tmp_path / "config.json"
    config.write_text('{"prot": 9000}')
    typo = subprocess.run([binary(), "users", "list", "--config", str(config), "--database", str(tmp_path / "db.sqlite")],
                          capture_output=True, text=True, timeout=60)
    assert typo.returncode != 0 and "prot: unknown key" in typo.stderr


def test_key_rotation_keeps_the_previous_key_published(server):
    before = json.loads(server.cli("keys", "list", "--json").stdout)
    active_before = {key["kid"] for key in before if key["status"] == "active"}
    assert len(active_before) == 2
    rotated = json.loads(server.cli("keys", "rotate", "--json").stdout)
    assert {key["algorithm"] for key in rotated} == {"RS256", "ES256"}
    after = json.loads(server.cli("keys", "list", "--json").stdout)
    statuses = {key["kid"]: key["status"] for key in after}
    assert all(statuses[kid] == "retired" for kid in active_before)
    assert all(statuses[key["kid"]] == "active" for key in rotated)
    assert all(key["published_until"] for key in after if key["status"] == "retired")


def test_serve_reports_a_busy_port(server):
    import subprocess
    from gatehouse_harness import binary
    result = subprocess.run([binary(), "serve", "--port", str(server.port), "--database", server.database, "--config", server.config_path],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert f"Port {server.port} on 127.0.0.1 is already in use" in result.stderr


def test_serve_refuses_to_send_codes_to_an_outbox_nobody_chose(tmp_path):
    from gatehouse_harness import free_port, gatehouse
    result = gatehouse("serve", "--port", str(free_port()), "--database", str(tmp_path / "g.sqlite"), check=False, timeout=60)
    assert result.returncode != 0
    assert "No delivery is configured for courier.email and courier.sms" in result.stderr and "--demo" in result.stderr
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"courier": {"email": {"delivery": "outbox"}}}))
    result = gatehouse("serve", "--port", str(free_port()), "--database", str(tmp_path / "g.sqlite"), "--config", str(config),
                       check=False, timeout=60)
    assert result.returncode != 0 and "No delivery is configured for courier.sms:" in result.stderr


def test_a_file_that_is_not_a_database_is_reported(tmp_path):
    import subprocess
    from gatehouse_harness import binary
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    result = subprocess.run([binary(), "users", "list", "--database", str(garbage)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert f"Cannot open the database at {garbage}" in result.stderr


def phc_scrypt(password, salt=b"0123456789abcdef", log_n=14):
    """A PHC scrypt string made by Python's hashlib (OpenSSL): an independent implementation of what Gatehouse stores."""
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2 ** log_n, r=8, p=1, dklen=32, maxmem=2 ** 28)
    b64 = lambda raw: base64.b64encode(raw).decode().rstrip("=")
    return f"$scrypt$ln={log_n},r=8,p=1${b64(salt)}${b64(digest)}"


def test_users_import_all_or_none_with_hashes_from_another_implementation(server):
    lines = [
        {"username": "imported1", "email": "imported1@example.com", "given_name": "Ima", "family_name": "Ported",
         "password_hash": phc_scrypt("hashed elsewhere, then moved here")},
        {"username": "imported2", "email": "imported2@example.com", "password": "typed in clear for the import"},
    ]
    bad = lines + [{"username": "imported3", "email": "not-an-email", "password_hash": phc_scrypt("x")}]
    refused = server.cli("users", "import", "-", stdin="\n".join(json.dumps(line) for line in bad), check=False)
    assert refused.returncode != 0 and "Line 3" in refused.stderr and "Nothing was imported" in refused.stderr
    weak = server.cli("users", "import", "-", stdin=json.dumps({"username": "w", "email": "w@example.com", "password": "password"}), check=False)
    assert weak.returncode != 0 and "Line 1" in weak.stderr and "not accepted" in weak.stderr
    assert "imported1" not in server.cli("users", "list").stdout

    result = json.loads(server.cli("users", "import", "-", "--json", stdin="\n".join(json.dumps(line) for line in lines) + "\n\n").stdout)
    assert result["imported"] == 2
    listed = {user["username"]: user for user in json.loads(server.cli("users", "list", "--json").stdout)}
    assert listed["imported1"]["name"] == "Ima Ported" and "imported2" in listed

    again = server.cli("users", "import", "-", stdin=json.dumps(lines[0]), check=False)
    assert again.returncode != 0 and "imported1 already exists" in again.stderr

    # Both sign in: the hash from hashlib verifies in Gatehouse, the clear password was hashed on import.
    for username, password in [("imported1", "hashed elsewhere, then moved here"), ("imported2", "typed in clear for the import")]:
        flow = start(server).json()
        answer = submit(server, flow["flow_id"], {"username": username, "password": password}).json()
        assert answer["status"] == "success", answer


def test_db_stats_shows_rows_oldest_row_and_size(server):
    stats = json.loads(server.cli("db", "stats", "--json").stdout)
    tables = {table["name"]: table for table in stats["tables"]}
    users = json.loads(server.cli("users", "list", "--json").stdout)
    assert tables["users"]["rows"] == len(users) and tables["users"]["oldest"] <= min(user["created_at"] for user in users)
    assert {"refresh_tokens", "flows", "courier_messages", "audit_events", "attempt_counters"} <= set(tables)
    assert stats["total_bytes"] > 0
    table = server.cli("db", "stats").stdout
    assert "TABLE" in table and "refresh_tokens" in table and "Database:" in table
