"""An operator moves from SQLite to PostgreSQL with `gatehouse copy` without losing users, clients, keys or tokens."""
import json
import subprocess
import threading
import time

import pytest
import requests

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import POSTGRES_URL, authorize_url, Browser, drop_postgres_database, free_port, fresh_postgres_database, gatehouse, redeem, redirect_parameters, refresh, Server

needs_postgres = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")
OPS_SECRET = "ops-client-secret-0123456789-abcdefghijklmnop"


@needs_postgres
def test_copy_sqlite_to_postgres_and_keep_going():
    old = Server()
    url = fresh_postgres_database()
    new = None
    try:
        old.add_user("alice", PASSWORD)
        old.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        tokens = redeem(old, redirect_parameters(Browser(old).sign_in(authorize_url(old), "alice", PASSWORD))["code"]).json()
        old_keys = requests.get(old.issuer + "/jwks", timeout=10).json()

        copied = gatehouse("copy", "--from", old.database, "--to", url)
        rows = dict(line.split() for line in copied.stdout.splitlines()[1:] if line and not line.startswith("Copied"))
        assert rows["users"] == "1" and rows["clients"] == "1" and rows["signing_keys"] == "2" and rows["refresh_tokens"] == "1"

        again = gatehouse("copy", "--from", old.database, "--to", url, check=False)
        assert again.returncode != 0 and "already holds users" in again.stderr

        # The new server uses the old server's secret, so the copied keys open.
        new = Server(database_url=url, config={"secret": None, "secret_file": old.database + ".secret"})
        assert "up to date" in new.cli("migrate").stdout
        assert requests.get(new.issuer + "/jwks", timeout=10).json() == old_keys
        rotated = refresh(new, tokens["refresh_token"])
        assert rotated.status_code == 200, rotated.text
        assert requests.get(new.issuer + "/userinfo", headers={"Authorization": f"Bearer {rotated.json()['access_token']}"},
                            timeout=10).status_code == 200
        code = redirect_parameters(Browser(new).sign_in(authorize_url(new), "alice", PASSWORD))["code"]
        assert redeem(new, code).status_code == 200
        assert [user["username"] for user in json.loads(new.cli("users", "list", "--json").stdout)] == ["alice"]
    finally:
        if new:
            new.stop()
        old.stop()
        drop_postgres_database(url)


@needs_postgres
def test_a_node_with_another_secret_refuses_to_start():
    url = fresh_postgres_database()
    first = Server(database_url=url)
    try:
        result = gatehouse("serve", "--port", str(free_port()), "--database", url, "--config", first.config_path, check=False,
                           env={"GATEHOUSE_SECRET": "a-different-secret-of-at-least-32-characters"})
        assert result.returncode != 0
        assert "cannot be decrypted" in result.stderr and "same secret" in result.stderr
    finally:
        first.stop()
        drop_postgres_database(url)


def count(database, query):
    return int(subprocess.run(["sqlite3", database, query], check=True, capture_output=True, text=True, timeout=30).stdout.strip())


def test_a_copy_of_a_live_database_is_one_moment_of_it(tmp_path):
    """The server keeps creating accounts (each with its audit event, in one transaction) while `gatehouse copy` runs
    three times: every copy succeeds, and each holds exactly as many accounts as account-created events — one moment of
    the source, not tables read at different times."""
    server = Server()
    stop = threading.Event()
    writers: list[threading.Thread] = []
    try:
        server.add_client("ops", "https://ops.example/cb", secret=OPS_SECRET, extra=["--scope", "gatehouse:admin"])
        bearer = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                               auth=("ops", OPS_SECRET), timeout=10).json()["access_token"]
        created = []

        def keep_creating(prefix):
            session = requests.Session()
            for number in range(5000):
                if stop.is_set():
                    return
                answer = session.post(server.issuer + "/admin/v1/users", headers={"Authorization": f"Bearer {bearer}"},
                                      json={"username": f"{prefix}{number}", "email": f"{prefix}{number}@example.com"}, timeout=10)
                assert answer.status_code == 201, answer.text
                created.append(number)

        writers.extend(threading.Thread(target=keep_creating, args=(prefix,)) for prefix in ("a", "b"))
        for writer in writers:
            writer.start()
        while len(created) < 20:
            time.sleep(0.05)
        for attempt in range(3):
            target = str(tmp_path / f"copy-{attempt}.sqlite")
            before = len(created)
            copied = gatehouse("copy", "--from", server.database, "--to", target)
            assert "Copied." in copied.stdout
            users = count(target, "SELECT COUNT(*) FROM users")
            assert users == count(target, "SELECT COUNT(*) FROM audit_events WHERE type = 'account.created'"), copied.stdout
            assert users >= before
        assert len(created) > before, "the server was not written to during the copies"
    finally:
        stop.set()
        for writer in writers:
            writer.join(timeout=30)
        server.stop()
