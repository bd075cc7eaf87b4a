"""`gatehouse backup` copies a serving database whole while refresh and client-credentials traffic runs; the copy passes
`gatehouse db verify`, `gatehouse restore` brings it back into an empty database, and the restored server honours the
refresh tokens handed out before the backup began."""
import json
import os
import stat
import subprocess
import threading
import time

import pytest
import requests

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import (POSTGRES_URL, authorize_url, Browser, drop_postgres_database, fresh_postgres_database, gatehouse, redeem,
                               redirect_parameters, refresh, Server)

needs_postgres = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")

WORKER_SECRET = "worker-client-secret-0123456789-abcdefghijklm"


def sign_in(server) -> dict:
    answer = redeem(server, redirect_parameters(Browser(server).sign_in(authorize_url(server), "alice", PASSWORD))["code"])
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_backup_under_load_verifies_restores_and_keeps_refresh_tokens(tmp_path):
    server = Server()
    restored = None
    stop = threading.Event()
    counts = {"refresh": 0, "client_credentials": 0}
    failures: list[str] = []

    def keep_refreshing(token):
        session = requests.Session()
        for _ in range(20000):
            if stop.is_set():
                return
            answer = session.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": token},
                                  auth=("web", WEB_SECRET), timeout=10)
            if answer.status_code != 200:
                failures.append(answer.text)
                return
            token = answer.json()["refresh_token"]
            counts["refresh"] += 1

    def keep_issuing():
        session = requests.Session()
        for _ in range(20000):
            if stop.is_set():
                return
            answer = session.post(server.issuer + "/token", data={"grant_type": "client_credentials"}, auth=("worker", WORKER_SECRET),
                                  timeout=10)
            if answer.status_code != 200:
                failures.append(answer.text)
                return
            counts["client_credentials"] += 1

    threads = []
    try:
        server.add_user("alice", PASSWORD)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        server.add_client("worker", "https://worker.example/cb", secret=WORKER_SECRET)
        kept = [sign_in(server)["refresh_token"] for _ in range(3)]
        threads = [threading.Thread(target=keep_refreshing, args=(sign_in(server)["refresh_token"],)), threading.Thread(target=keep_issuing)]
        for thread in threads:
            thread.start()
        while counts["refresh"] < 50 or counts["client_credentials"] < 50:
            assert not failures, failures
            time.sleep(0.05)

        backup = str(tmp_path / "backup.sqlite")
        before = dict(counts)
        taken = server.cli("backup", "--to", backup, timeout=300)
        assert "the copy passed its checks" in taken.stdout, taken.stdout
        assert "Keep a copy of the server secret" in taken.stdout
        time.sleep(0.5)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        assert not failures, failures
        assert counts["refresh"] > before["refresh"] and counts["client_credentials"] > before["client_credentials"], \
            "the server was not serving while the backup was taken"
        assert stat.S_IMODE(os.stat(backup).st_mode) == 0o600

        verified = json.loads(gatehouse("db", "verify", "--database", backup, "--json").stdout)
        assert verified["sound"] is True and verified["problems"] == []
        rows = {table["name"]: table["rows"] for table in verified["tables"]}
        assert rows["users"] == 1 and rows["clients"] == 2 and rows["signing_keys"] == 2
        assert rows["refresh_tokens"] >= 4 and rows["access_tokens"] >= 50

        again = server.cli("backup", "--to", backup, check=False)
        assert again.returncode != 0 and "already exists" in again.stderr

        target = str(tmp_path / "restored.sqlite")
        done = gatehouse("restore", "--from", backup, "--database", target)
        assert "every table holds the backup's rows" in done.stdout
        twice = gatehouse("restore", "--from", backup, "--database", target, check=False)
        assert twice.returncode != 0 and "already holds" in twice.stderr

        restored = Server(database_url=target, config={"secret": None, "secret_file": server.database + ".secret"})
        for token in kept:
            answer = refresh(restored, token)
            assert answer.status_code == 200, answer.text
        events = json.loads(restored.cli("events", "--type", "database.restored", "--json").stdout)
        assert len(events) == 1 and events[0]["actor"].startswith("operator:")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        if restored:
            restored.stop()
        server.stop()


def test_verify_reports_a_damaged_file_and_restore_refuses_it(tmp_path):
    server = Server()
    try:
        lines = "\n".join(json.dumps({"username": f"user{index}", "email": f"user{index}@example.com", "password": PASSWORD}) for index in range(150))
        server.cli("users", "import", "-", stdin=lines + "\n")
        backup = str(tmp_path / "backup.sqlite")
        server.cli("backup", "--to", backup)
    finally:
        server.stop()
    with open(backup, "r+b") as file:
        size = os.path.getsize(backup)
        file.seek((size // 4096 // 2) * 4096)
        file.write(bytes((index * 37 + 11) % 256 for index in range(2 * 4096)))
    checked = gatehouse("db", "verify", "--database", backup, check=False)
    assert checked.returncode != 0
    assert "Problem:" in checked.stdout or "malformed" in checked.stderr, (checked.stdout, checked.stderr)
    refused = gatehouse("restore", "--from", backup, "--database", str(tmp_path / "restored.sqlite"), check=False)
    assert refused.returncode != 0
    missing = gatehouse("db", "verify", "--database", str(tmp_path / "nothing.sqlite"), check=False)
    assert missing.returncode != 0 and "There is no database at" in missing.stderr


def test_a_backup_that_lost_a_table_is_not_sound_and_is_not_restored(tmp_path):
    """A backup missing one of the tables its schema version has (here `consents`, dropped with the sqlite3 shell) was
    reported sound and restored: every table the recorded migrations made is now expected."""
    import sqlite3

    server = Server()
    try:
        server.add_user("ann", PASSWORD)
        backup = str(tmp_path / "backup.sqlite")
        server.cli("backup", "--to", backup)
    finally:
        server.stop()
    assert gatehouse("db", "verify", "--database", backup).returncode == 0
    with sqlite3.connect(backup) as database:
        database.execute("DROP TABLE consents")
    checked = gatehouse("db", "verify", "--database", backup, check=False)
    assert checked.returncode != 0 and "The table consents is missing." in checked.stdout, (checked.stdout, checked.stderr)
    refused = gatehouse("restore", "--from", backup, "--database", str(tmp_path / "restored.sqlite"), check=False)
    assert refused.returncode != 0 and "consents is missing" in refused.stderr, (refused.stdout, refused.stderr)


@needs_postgres
def test_postgresql_backups_by_pg_dump_and_by_gatehouse_both_verify_and_restore(tmp_path):
    """The README's PostgreSQL path: pg_dump and pg_restore into a new database, checked by `gatehouse db verify`; and
    `gatehouse backup` of the PostgreSQL database (one snapshot into a SQLite file) restored into another."""
    source = fresh_postgres_database()
    dumped = fresh_postgres_database()
    restored_url = fresh_postgres_database()
    server = Server(database_url=source, owns_database=True)
    restored = None
    try:
        server.add_user("alice", PASSWORD)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        kept = sign_in(server)["refresh_token"]

        dump = str(tmp_path / "gatehouse.dump")
        subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", source], check=True, capture_output=True, timeout=120)
        subprocess.run(["pg_restore", "--no-owner", f"--dbname={dumped}", dump], check=True, capture_output=True, timeout=120)
        verified = json.loads(gatehouse("db", "verify", "--database", dumped, "--json").stdout)
        assert verified["sound"] is True
        assert {table["name"]: table["rows"] for table in verified["tables"]}["users"] == 1

        backup = str(tmp_path / "backup.sqlite")
        assert "the copy passed its checks" in server.cli("backup", "--to", backup).stdout
        assert "every table holds the backup's rows" in gatehouse("restore", "--from", backup, "--database", restored_url).stdout
        restored = Server(database_url=restored_url)
        answer = refresh(restored, kept)
        assert answer.status_code == 200, answer.text
    finally:
        if restored:
            restored.stop()
        server.stop()
        drop_postgres_database(dumped)
        drop_postgres_database(restored_url)
