"""An operator moves from SQLite to PostgreSQL with `gatehouse copy` without losing users, clients, keys or tokens."""
import json

import pytest
import requests

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import POSTGRES_URL, authorize_url, Browser, drop_postgres_database, free_port, fresh_postgres_database, gatehouse, redeem, redirect_parameters, refresh, Server

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")


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
