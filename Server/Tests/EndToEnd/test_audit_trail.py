"""The audit trail end to end: a scripted journey through the flow API, the token endpoint and the CLI leaves exactly
one event per action, each with the request's address, user agent and request id; `gatehouse events` filters and
exports them; and no secret used along the way (passwords, codes, tokens) is in the database files or the logs."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import requests

from gatehouse_harness import APP_REDIRECT, PASSWORD, RFC7636_VERIFIER, Server, exchange, start, submit

WRONG = "not the password 1234"


@pytest.fixture(scope="module")
def audited():
    server = Server(config={"login_throttling": {"max_failures": 3, "window": 900, "cooldown": 300}})
    server.add_user("ada", PASSWORD, email="ada@example.com")
    server.add_client("app", APP_REDIRECT, public=True)
    yield server
    server.stop()


def events(server, *args):
    return [json.loads(line) for line in server.cli("events", "--jsonl", "--limit", "1000", *args).stdout.splitlines() if line]


def test_one_event_per_action_and_no_secret_anywhere(audited):
    server = audited
    secrets = [PASSWORD, WRONG]
    flow = start(server).json()["flow_id"]
    for _ in range(3):
        answer = submit(server, flow, {"username": "ada", "password": WRONG}).json()
        assert answer["node"]["messages"][0]["code"] == "invalid_credentials"
    throttled = submit(server, flow, {"username": "ada", "password": PASSWORD}).json()
    assert throttled["node"]["messages"][0]["code"] == "throttled"
    server.cli("users", "unlock", "ada")

    response = requests.post(f"{server.issuer}/flows/{flow}", json={"client_id": "app", "action": "submit",
                                                                  "values": {"username": "ada", "password": PASSWORD}},
                             headers={"User-Agent": "AuditTest/1.0"}, timeout=30)
    done = response.json()
    assert done["status"] == "success", done
    request_id = response.headers["X-Request-Id"]
    code = done["authorization"]["code"]
    tokens = exchange(server, code).json()
    secrets += [code, tokens["access_token"], tokens["refresh_token"], tokens["id_token"]]
    first = tokens["refresh_token"]
    rotated = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": first, "client_id": "app"},
                            timeout=10).json()
    newest = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": rotated["refresh_token"],
                                                           "client_id": "app"}, timeout=10).json()
    secrets += [rotated["access_token"], rotated["refresh_token"], newest["access_token"], newest["refresh_token"]]
    reused = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": first, "client_id": "app"},
                           timeout=10)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"

    trail = [event for event in events(server) if event["type"] != "configuration.loaded"]
    counted = {}
    for event in trail:
        counted[event["type"]] = counted.get(event["type"], 0) + 1
    assert counted == {"account.created": 1, "client.created": 1, "sign_in.failed": 4, "account.locked_out": 1, "account.unlocked": 1,
                       "sign_in.succeeded": 1, "refresh_token.reused": 1}, counted
    ada = json.loads(server.cli("users", "list", "--json").stdout)[0]["id"]
    reasons = [event["details"]["reason"] for event in trail if event["type"] == "sign_in.failed"]
    assert reasons == ["invalid_credentials"] * 3 + ["throttled"]
    signed_in = next(event for event in trail if event["type"] == "sign_in.succeeded")
    assert signed_in["user_id"] == ada and signed_in["client_id"] == "app" and signed_in["address"] == "127.0.0.1"
    assert signed_in["user_agent"] == "AuditTest/1.0" and signed_in["request_id"] == request_id
    assert next(event for event in trail if event["type"] == "account.unlocked")["actor"].startswith("operator:")
    reuse = next(event for event in trail if event["type"] == "refresh_token.reused")
    assert reuse["user_id"] == ada and reuse["actor"] == "client:app"

    # Filters.
    assert {event["type"] for event in events(server, "--user", "ada")} >= {"sign_in.succeeded", "account.unlocked", "refresh_token.reused"}
    assert [event["type"] for event in events(server, "--type", "account.locked_out")] == ["account.locked_out"]
    assert events(server, "--since", "2999-01-01T00:00:00Z") == []
    assert "sign_in.succeeded" in server.cli("events", "--client", "app").stdout
    refused = server.cli("events", "--type", "sign_in.nonsense", check=False)
    assert refused.returncode != 0 and "Unknown event type" in refused.stderr
    # A full page says that more may match (on standard error, the JSON stays whole); one that is not full says nothing.
    cut = server.cli("events", "--json", "--limit", "2")
    assert len(json.loads(cut.stdout)) == 2 and "Showing the first 2 matching events" in cut.stderr and "--limit" in cut.stderr
    assert "Showing" not in server.cli("events", "--json", "--limit", "10000").stderr

    # No secret in the database (with its write-ahead log) or in the server's output.
    stored = b"".join(path.read_bytes() for path in Path(server.folder.name).iterdir() if path.name.startswith("gatehouse.sqlite"))
    logs = (server.stdout() + server.stderr()).encode()
    for secret in secrets:
        assert secret.encode() not in stored, f"a secret ({secret[:4]}…) is in the database files"
        assert secret.encode() not in logs, f"a secret ({secret[:4]}…) is in the logs"


def test_what_is_typed_as_a_name_never_forges_the_operators_view(audited):
    server = audited
    before = len(events(server, "--type", "sign_in.failed"))
    # A password typed into the username field names no account: the trail keeps only a keyed digest of it.
    misplaced = "Hunter2-typed-in-the-wrong-field"
    flow = start(server).json()["flow_id"]
    assert submit(server, flow, {"username": misplaced, "password": "x"}).json()["node"]["messages"][0]["code"] == "invalid_credentials"
    assert submit(server, flow, {"username": "ADA", "password": WRONG}).json()["node"]["messages"][0]["code"] == "invalid_credentials"
    failed = events(server, "--type", "sign_in.failed")[before:]
    assert "username" not in failed[0]["details"] and len(failed[0]["details"]["username_digest"]) == 16, failed[0]
    assert failed[1]["details"]["username"] == "ada" and "username_digest" not in failed[1]["details"]  # a real account, named
    stored = b"".join(path.read_bytes() for path in Path(server.folder.name).iterdir() if path.name.startswith("gatehouse.sqlite"))
    assert misplaced.lower().encode() not in stored and misplaced.encode() not in stored

    # A name with a line break or an escape sequence is refused at the node, before anything is counted or recorded.
    for forged in ["eve\n2026-11-26T08:00:00Z  sign_in.succeeded  system  admin", "eve\x1b[2J\x1b[31mroot"]:
        answer = submit(server, flow, {"username": forged, "password": "x"}).json()
        assert answer["status"] == "error" and answer["node"]["messages"][0]["code"] == "invalid_value", answer
        assert "control characters" in answer["node"]["messages"][0]["text"]
    assert len(events(server, "--type", "sign_in.failed")) == before + 2
    # Nor can a relying party put one in through login_hint, which the node shows as the typed name.
    hinted = start(server, login_hint="eve\nsign_in.succeeded")
    assert hinted.status_code == 400 and "login_hint" in hinted.json()["error_description"], hinted.text

    # A legacy account whose name has them (made before names were checked) is printed escaped in every table.
    server.add_user("legacy", PASSWORD, email="legacy@example.com")
    import subprocess
    subprocess.run(["sqlite3", server.database, "UPDATE users SET username = 'old' || char(10) || 'forged line' || char(27) || '[31m' "
                                                 "WHERE username = 'legacy'"], check=True, timeout=30)
    listed = server.cli("users", "list").stdout
    assert "old\\nforged line\\u{1B}[31m" in listed and "\x1b" not in listed and "\nforged" not in listed, listed
    legacy = next(user for user in json.loads(server.cli("users", "list", "--json").stdout) if user["username"].startswith("old"))
    server.cli("users", "delete", legacy["username"])
    table = server.cli("events", "--type", "account.deleted").stdout
    assert "username=old\\nforged line\\u{1B}[31m" in table and "\x1b" not in table and len(table.splitlines()) == 2, table


def test_every_response_has_a_request_id_and_a_strangers_is_replaced(audited):
    first = requests.get(audited.issuer + "/health/live", timeout=10)
    second = requests.get(audited.issuer + "/health/live", headers={"X-Request-Id": "forged-id"}, timeout=10)
    assert first.headers["X-Request-Id"] and second.headers["X-Request-Id"] not in ("forged-id", first.headers["X-Request-Id"])


class SIEM:
    """A webhook receiver on loopback: checks each batch's signature, refuses the first one (to see the retry), and keeps
    the events it accepted."""

    SECRET = "siem-hmac-secret-0123456789-abcdefghijklmnop"

    def __init__(self):
        import hashlib
        import hmac
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from datetime import datetime, timezone

        from standardwebhooks.webhooks import Webhook

        from gatehouse_harness import free_port
        self.port = free_port()
        self.events: list[dict] = []
        self.attempts = 0
        self.bad_signatures = 0
        siem = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                fields = dict(part.split("=", 1) for part in self.headers["X-Gatehouse-Signature"].split(","))
                expected = hmac.new(SIEM.SECRET.encode(), f"{fields['t']}.{body}".encode(), hashlib.sha256).hexdigest()
                siem.attempts += 1
                # The same batch signed as Standard Webhooks has it, checked by its own library (whose verify() also
                # parses the body as one JSON document, which a batch of JSON lines is not).
                sent_at = datetime.fromtimestamp(int(self.headers["webhook-timestamp"]), tz=timezone.utc)
                standard = hmac.compare_digest(Webhook(SIEM.SECRET.encode()).sign(self.headers["webhook-id"], sent_at, body),
                                               self.headers["webhook-signature"])
                if not hmac.compare_digest(expected, fields["sha256"]) or not standard:
                    siem.bad_signatures += 1
                    self.send_response(401)
                elif siem.attempts == 1:
                    self.send_response(503)  # the first batch is refused: it must come again
                else:
                    siem.events += [json.loads(line) for line in body.splitlines() if line]
                    self.send_response(200)
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_the_trail_reaches_a_siem_signed_in_order_and_once(tmp_path):
    siem = SIEM()
    server = Server(config={"audit": {"webhook": {"url": f"http://127.0.0.1:{siem.port}/events", "secret": SIEM.SECRET}}})
    try:
        server.add_user("ada", PASSWORD, email="ada@example.com")
        server.add_client("app", APP_REDIRECT, public=True)
        flow = start(server).json()["flow_id"]
        submit(server, flow, {"username": "ada", "password": WRONG})
        assert submit(server, flow, {"username": "ada", "password": PASSWORD}).json()["status"] == "success"
        wanted = {event["id"] for event in events(server)}
        # The refused first batch waits 10 seconds before it is sent again.
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not wanted <= {event["id"] for event in siem.events}:
            time.sleep(0.5)
        received = [event["id"] for event in siem.events]
        assert wanted <= set(received), (len(wanted), len(received))
        assert len(received) == len(set(received)) and received == sorted(received)
        assert siem.attempts >= 2 and siem.bad_signatures == 0
        assert {"sign_in.failed", "sign_in.succeeded", "account.created"} <= {event["type"] for event in siem.events}
    finally:
        server.stop()
        siem.stop()
