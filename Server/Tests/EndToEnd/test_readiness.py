"""Readiness reports a node that cannot commit: with its PostgreSQL database turned read-only (reads still work), or
its SQLite database's disk full (a small write may still fit where a token's does not), a node's `/health/ready`
answers 503 within the write probe's interval and logs the database's own reason; once writes work again, it is ready
again."""
from __future__ import annotations

import subprocess
import time
from urllib.parse import urlparse

import pytest
import requests

from gatehouse_harness import POSTGRES_URL, WEB_REDIRECT, WEB_SECRET, Server, fresh_postgres_database

needs_postgres = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")


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


@needs_postgres
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


def fill(folder) -> None:
    """Writes to `folder` until its file system has no space left. Unbuffered: a buffered file would try the bytes it
    still holds again when it closes, and fail there."""
    with open(folder / "filler", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * (1 << 16))
        except OSError:
            pass


def test_a_full_disk_makes_a_sqlite_node_unready(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(disk)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"a small file system cannot be mounted here (it needs root): {mounted.stderr.strip()}")
    server = None
    try:
        server = Server(database_url=str(disk / "gatehouse.sqlite"))
        server.add_client("svc", WEB_REDIRECT, secret=WEB_SECRET, extra=["--scope", "phone"])

        def grant():
            return requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "phone"},
                                 auth=("svc", WEB_SECRET), timeout=10)

        assert grant().status_code == 200 and wait_for(server, 200) == 200
        fill(disk)
        # Token writes fail cleanly once they need space, as readiness says: 503 with Retry-After; reads still answer.
        answers = [grant() for _ in range(200)]
        assert {answer.status_code for answer in answers} <= {200, 503}, {answer.status_code for answer in answers}
        assert all(answer.json().get("error") in (None, "temporarily_unavailable") for answer in answers)
        assert all(int(answer.headers["Retry-After"]) > 0 for answer in answers if answer.status_code == 503)
        assert requests.get(server.issuer + "/.well-known/openid-configuration", timeout=5).status_code == 200
        assert wait_for(server, 503, seconds=15) == 503
        log = server.stderr()
        assert "Readiness check failed" in log and ("bytes free" in log or "full disk" in log), log[-2000:]
        # SQLite's failures are logged with their result code and its name, not the error's type alone.
        assert any(answer.status_code == 503 for answer in answers)
        assert "SQLite error 13 (database or disk is full)" in log, log[-3000:]
        (disk / "filler").unlink()
        assert wait_for(server, 200, seconds=15) == 200
        assert grant().status_code == 200
    finally:
        if server:
            server.stop()
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
