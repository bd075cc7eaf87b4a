"""Readiness reports a node that cannot commit: with its PostgreSQL database turned read-only (reads still work), a
node's `/health/ready` answers 503 within the write probe's interval and logs the database's own reason; once writes
work again, it is ready again."""
from __future__ import annotations

import subprocess
import time
from urllib.parse import urlparse

import pytest
import requests

from gatehouse_harness import POSTGRES_URL, Server, fresh_postgres_database

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")


def set_read_only(database_url: str, read_only: bool) -> None:
    """Makes new sessions of the database read-only (or not) and ends the current ones, so the node's pool reconnects."""
    name = urlparse(database_url).path.lstrip("/")
    setting = "on" if read_only else "off"
    for statement in (f"ALTER DATABASE {name} SET default_transaction_read_only = {setting}",
                      f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' AND pid <> pg_backend_pid()"):
        subprocess.run(["psql", POSTGRES_URL, "-q", "-c", statement], check=True, capture_output=True, timeout=60)


def wait_for(server, status: int, seconds: float = 30) -> int:
    deadline = time.monotonic() + seconds
    answer = 0
    while time.monotonic() < deadline:
        try:
            answer = requests.get(server.issuer + "/health/ready", timeout=5).status_code
        except requests.ConnectionError:
            answer = 0
        if answer == status:
            return answer
        time.sleep(0.5)
    return answer


def test_a_node_that_cannot_commit_is_not_ready():
    url = fresh_postgres_database()
    server = Server(database_url=url, owns_database=True)
    try:
        assert requests.get(server.issuer + "/health/ready", timeout=5).status_code == 200
        set_read_only(url, True)
        assert wait_for(server, 503) == 503
        assert requests.get(server.issuer + "/health/live", timeout=5).status_code == 200
        # Reads still answer (discovery needs the keys), so only the write probe can have told.
        assert requests.get(server.issuer + "/.well-known/openid-configuration", timeout=5).status_code == 200
        log = server.stderr()
        assert "the database takes no writes" in log and "PostgreSQL 25006" in log, log[-2000:]
        set_read_only(url, False)
        assert wait_for(server, 200) == 200
    finally:
        server.stop()
