"""The operator's hook on loopback, for the tests of hooks: it checks every request's signature with an independent
Standard Webhooks implementation (the `standardwebhooks` package) and answers as its `mode` says."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from gatehouse_harness import free_port

SECRET = "hook-signing-secret-0123456789-abcdefghijkl"
NAMESPACE = "https://example.com/"


class Receiver:
    """The operator's hook on loopback: verifies every request's signature, remembers what it was told, and answers as
    `mode` says. Event notifications it keeps in `events` with their `webhook-id`, after refusing (503) as many as
    `refuse` says."""

    def __init__(self):
        self.port = free_port()
        self.mode = "claims"
        self.requests: list[dict] = []
        self.bad_signatures = 0
        self.refuse = 0
        self.refused: list[str] = []
        self.events: list[tuple[str, dict]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                try:
                    told = Webhook(SECRET.encode()).verify(body, dict(self.headers.items()))
                except WebhookVerificationError:
                    receiver.bad_signatures += 1
                    self.send_response(401)
                    self.end_headers()
                    return
                if "data" in told:  # an event notification: answered by its status alone
                    refused = receiver.refuse > 0
                    if refused:
                        receiver.refuse -= 1
                        receiver.refused.append(self.headers["webhook-id"])
                    else:
                        receiver.events.append((self.headers["webhook-id"], told))
                    self.send_response(503 if refused else 204)
                    self.end_headers()
                    return
                receiver.requests.append(told)
                mode = receiver.mode
                if mode == "slow":
                    time.sleep(3)
                decisions = {"alice": {"decision": "allow"}, "bob": {"decision": "require_second_factor"},
                             "mallory": {"decision": "deny", "message": "Sign-ins from this account are paused; call the help desk."}}
                registrations = {"grace@example.com": {"decision": "allow", "profile": {"name": "Rear Admiral Grace Hopper"}},
                                 "spam@example.com": {"decision": "deny", "message": "Accounts for this domain are not open."},
                                 "sneaky@example.com": {"decision": "allow", "profile": {"email": "other@example.com"}}}
                if told.get("type") == "registration":
                    answer = registrations.get(told["profile"]["email"], {"decision": "allow"})
                else:
                    answer = {
                        "decide": decisions.get(told.get("user", {}).get("username"), {"decision": "allow"}),
                        "maybe": {"decision": "perhaps"},
                        "claims": {"id_token": {NAMESPACE + "roles": ["admin", "ops"], NAMESPACE + "team": {"name": "blue", "size": 3}},
                                   "access_token": {NAMESPACE + "tier": "gold"},
                                   "userinfo": {NAMESPACE + "plan": {"seats": 5}}},
                        "slow": {"id_token": {NAMESPACE + "late": True}},
                        "outside": {"id_token": {"email": "someone-else@example.com"}},
                        "unknown": {"refresh_token": {NAMESPACE + "x": 1}},
                    }.get(mode)
                payload = b"<html>oops</html>" if mode == "garbage" else json.dumps(answer).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the server gave up waiting

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for_events(self, count: int, seconds: float) -> list[tuple[str, dict]]:
        deadline = time.monotonic() + seconds
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.2)
        return list(self.events)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
