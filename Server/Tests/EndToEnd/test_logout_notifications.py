"""Relying parties hear that a person signed out: OpenID Connect Back-Channel Logout 1.0 (a logout token posted to each
client with a `backchannel_logout_uri` that the ended browser session signed in to, from the database queue, retried,
given up with an audit record) and Front-Channel Logout 1.0 (frames of each client's `frontchannel_logout_uri` with
`iss` and `sid` on the signed-out page). ID tokens carry the session's `sid`; logout tokens are verified with joserfc
against the server's JWKS, independently of Gatehouse's own JOSE code. Sessions end by RP-initiated logout, an
operator ending one session, locking the account, a password change, and someone else signing in on the browser."""
import http.server
import json
import threading
import time
from urllib.parse import parse_qs, urljoin, urlparse

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from conftest import ENGINES
from gatehouse_harness import PASSWORD, RFC7636_VERIFIER, Browser, Server, authorize_url, forms, fresh_postgres_database, redirect_parameters

REDIRECT = "http://127.0.0.1:9/cb"
SECRET = "relying-party-secret-0123456789-abcdefgh"
EVENT = "http://schemas.openid.net/event/backchannel-logout"


class RelyingParties:
    """A loopback web server standing in for the relying parties' logout endpoints: POST /bc/NAME records a logout
    token and answers 200, POST /failing answers 500; GET /fc/NAME records a front-channel visit."""

    def __init__(self):
        parties = self
        self.tokens: dict[str, list[str]] = {}
        self.failures: list[str] = []
        self.visits: list[dict] = []
        self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
                token = form.get("logout_token", [""])[0]
                with parties.lock:
                    if self.path == "/failing":
                        parties.failures.append(token)
                    else:
                        parties.tokens.setdefault(self.path.removeprefix("/bc/"), []).append(token)
                self.send_response(500 if self.path == "/failing" else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                url = urlparse(self.path)
                with parties.lock:
                    parties.visits.append({"client": url.path.removeprefix("/fc/"), **{k: v[0] for k, v in parse_qs(url.query).items()}})
                body = b"<!doctype html><title>signed out</title>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait_for(self, client: str, count: int = 1, timeout: float = 15) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                received = list(self.tokens.get(client, []))
            if len(received) >= count:
                return received
            time.sleep(0.1)
        raise AssertionError(f"{client} received {len(received)} logout tokens, expected {count}")

    def clear(self):
        with self.lock:
            self.tokens.clear()
            self.failures.clear()
            self.visits.clear()

    def stop(self):
        self.httpd.shutdown()


@pytest.fixture(scope="module", params=ENGINES)
def logout(request):
    """Relying parties' logout endpoints, and a server on each engine: the queue, the session's clients and the
    refresh that carries `sid` are SQL of their own on each."""
    parties = RelyingParties()
    config = {"backchannel_logout": {"retry_delay": 1, "max_attempts": 3, "timeout": 2}}
    if request.param == "postgres":
        server = Server(config=config, database_url=fresh_postgres_database(), owns_database=True)
    else:
        server = Server(config=config)
    server.add_user("alice", PASSWORD)
    server.add_user("bob", PASSWORD)
    server.add_client("rp1", REDIRECT, secret=SECRET, extra=[
        "--backchannel-logout-uri", parties.url + "/bc/rp1", "--frontchannel-logout-uri", parties.url + "/fc/rp1?tenant=one",
        "--post-logout-redirect-uri", "http://127.0.0.1:9/bye", "--name", "Relying Party One"])
    server.add_client("rp2", REDIRECT, secret=SECRET, extra=["--backchannel-logout-uri", parties.url + "/bc/rp2", "--id-token-alg", "ES256"])
    server.add_client("broken", REDIRECT, secret=SECRET, extra=["--backchannel-logout-uri", parties.url + "/failing"])
    server.add_client("quiet", REDIRECT, secret=SECRET)
    yield server, parties
    parties.stop()
    server.stop()


def sign_in_to(server, browser, client_id, username="alice", scope="openid", **extra):
    """A code for `client_id`, signing in when the browser's session does not answer; returns the tokens."""
    response = browser.get(authorize_url(server, client_id=client_id, redirect_uri=REDIRECT, scope=scope, **extra))
    if "Location" not in response.headers:
        response = browser.submit_login(response, username, PASSWORD)
    code = redirect_parameters(response)["code"]
    tokens = requests.post(server.issuer + "/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER},
        auth=(client_id, SECRET), timeout=10)
    assert tokens.status_code == 200, tokens.text
    return tokens.json()


def claims_of(server, token, algorithms=("RS256", "ES256")):
    keys = KeySet.import_key_set(requests.get(server.issuer + "/jwks", timeout=10).json())
    return jwt.decode(token, keys, algorithms=list(algorithms))


def check_logout_token(server, token, client_id, sub, sid):
    """A logout token as Back-Channel Logout 1.0 §2.4 and §2.6 ask the relying party to validate it."""
    decoded = claims_of(server, token)
    assert decoded.header["typ"] == "logout+jwt"
    claims = decoded.claims
    assert claims["iss"] == server.issuer and claims["aud"] == client_id and claims["sub"] == sub and claims["sid"] == sid
    assert claims["events"] == {EVENT: {}} and "nonce" not in claims and claims["jti"]
    assert claims["iat"] <= time.time() + 5 and 0 < claims["exp"] - claims["iat"] <= 120
    return claims


def events(server, kind):
    return [json.loads(line) for line in server.cli("events", "--type", kind, "--jsonl").stdout.splitlines()]


def test_discovery_offers_both_channels_and_sid(logout):
    server, _ = logout
    metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    for member in ["backchannel_logout_supported", "backchannel_logout_session_supported", "frontchannel_logout_supported",
                   "frontchannel_logout_session_supported"]:
        assert metadata[member] is True, member
    assert "sid" in metadata["claims_supported"]
    listed = {client["id"]: client for client in json.loads(server.cli("clients", "list", "--json").stdout)}
    assert listed["rp1"]["backchannel_logout_uri"].endswith("/bc/rp1") and listed["rp1"]["frontchannel_logout_uri"].endswith("?tenant=one")
    refused = server.cli("clients", "add", "bad", "--redirect-uri", REDIRECT, "--generate-secret", "--backchannel-logout-uri",
                         "http://rp.example.com/logout", check=False)
    assert refused.returncode != 0 and "https" in refused.stderr


def test_rp_initiated_logout_tells_every_client_of_the_session_by_both_channels(logout):
    server, parties = logout
    parties.clear()
    browser = Browser(server)
    first = sign_in_to(server, browser, "rp1", scope="openid offline_access")
    second = sign_in_to(server, browser, "rp2")  # single sign-on: the same session
    quiet = sign_in_to(server, browser, "quiet")
    sid = claims_of(server, first["id_token"]).claims["sid"]
    sub = claims_of(server, first["id_token"]).claims["sub"]
    assert sid and claims_of(server, second["id_token"]).claims["sid"] == sid == claims_of(server, quiet["id_token"]).claims["sid"]
    # A refreshed ID token keeps the session's sid.
    refreshed = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"]},
                              auth=("rp1", SECRET), timeout=10)
    assert claims_of(server, refreshed.json()["id_token"]).claims["sid"] == sid

    answer = browser.session.get(server.issuer + "/logout", params={
        "id_token_hint": first["id_token"], "post_logout_redirect_uri": "http://127.0.0.1:9/bye", "state": "st-1"},
        allow_redirects=False, timeout=10)
    # rp1 has a front-channel logout URI: the signed-out page frames it, then goes on to the client.
    assert answer.status_code == 200, answer.text
    frame = f'src="{parties.url}/fc/rp1?tenant=one&amp;iss={requests.utils.quote(server.issuer, safe="")}&amp;sid={sid}"'
    assert frame in answer.text, answer.text
    assert "http://127.0.0.1:9/bye?state=st-1" in answer.text and 'http-equiv="refresh"' in answer.text
    policy = answer.headers["Content-Security-Policy"]
    assert f"frame-src {parties.url}" in policy and "default-src 'none'" in policy and "frame-ancestors 'none'" in policy

    for client_id in ["rp1", "rp2"]:
        [token] = parties.wait_for(client_id)
        check_logout_token(server, token, client_id, sub, sid)
    assert "quiet" not in parties.tokens
    notified = [event for event in events(server, "logout.notified") if event["details"]["sid"] == sid]
    assert sorted(event["client_id"] for event in notified) == ["rp1", "rp2"]
    # The session is over: the next authorization asks to sign in.
    page = browser.get(authorize_url(server, client_id="rp1", redirect_uri=REDIRECT, scope="openid"))
    assert "Location" not in page.headers and forms(page.text)


def test_signing_in_again_keeps_the_session_and_someone_else_ends_it(logout):
    server, parties = logout
    parties.clear()
    browser = Browser(server)
    first = sign_in_to(server, browser, "rp2")
    again = sign_in_to(server, browser, "rp2", prompt="login")
    sid = claims_of(server, first["id_token"]).claims["sid"]
    assert claims_of(server, again["id_token"]).claims["sid"] == sid
    time.sleep(1.5)
    assert "rp2" not in parties.tokens, "the same person signing in again is the same session"
    bob = sign_in_to(server, browser, "rp2", username="bob", prompt="login")
    assert claims_of(server, bob["id_token"]).claims["sid"] != sid
    [token] = parties.wait_for("rp2")
    check_logout_token(server, token, "rp2", claims_of(server, first["id_token"]).claims["sub"], sid)


def test_an_operator_ending_a_session_or_locking_the_account_and_a_password_change_notify(logout):
    server, parties = logout
    parties.clear()
    browser = Browser(server)
    sid = claims_of(server, sign_in_to(server, browser, "rp1")["id_token"]).claims["sid"]
    listing = json.loads(server.cli("users", "sessions", "alice", "--json").stdout)
    for session in listing["sessions"]:
        server.cli("users", "sessions", "alice", "--end", session["id"])
    assert claims_of(server, parties.wait_for("rp1")[0]).claims["sid"] == sid

    parties.clear()
    sid = claims_of(server, sign_in_to(server, Browser(server), "rp2")["id_token"]).claims["sid"]
    server.cli("users", "lock", "alice")
    server.cli("users", "unlock", "alice")
    assert claims_of(server, parties.wait_for("rp2")[0]).claims["sid"] == sid

    parties.clear()
    browser = Browser(server)
    sid = claims_of(server, sign_in_to(server, browser, "rp1")["id_token"]).claims["sid"]
    other = Browser(server)
    other_sid = claims_of(server, sign_in_to(server, other, "rp1")["id_token"]).claims["sid"]
    # The account page changes the password: every session ends, the one changing it starts anew.
    page = browser.get(server.issuer + "/account")
    form = next(form for form in forms(page.text) if form["inputs"].get("change") == "password")
    changed = browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "current_password": PASSWORD, "new_password": PASSWORD + "-2"})
    assert "Your password was changed" in changed.text, changed.text
    received = {claims_of(server, token).claims["sid"] for token in parties.wait_for("rp1", count=2)}
    assert {sid, other_sid} <= received
    server.cli("users", "delete", "alice")
    server.add_user("alice", PASSWORD)


def test_a_client_that_keeps_failing_is_retried_then_given_up_with_an_audit_record(logout):
    server, parties = logout
    parties.clear()
    browser = Browser(server)
    sid = claims_of(server, sign_in_to(server, browser, "broken")["id_token"]).claims["sid"]
    browser.session.post(server.issuer + "/logout", data={"id_token_hint": sign_in_to(server, browser, "broken")["id_token"]}, timeout=10)
    deadline = time.monotonic() + 20
    failed = []
    while time.monotonic() < deadline and not failed:
        failed = [event for event in events(server, "logout.notification_failed") if event["details"]["sid"] == sid]
        time.sleep(0.3)
    assert failed and failed[0]["client_id"] == "broken" and failed[0]["details"]["attempts"] == "3", failed
    assert "500" in failed[0]["details"]["error"]
    with parties.lock:
        attempts = list(parties.failures)
    assert len(attempts) == 3 and len({claims_of(server, token).claims["jti"] for token in attempts}) == 3
    time.sleep(1.5)
    with parties.lock:
        assert len(parties.failures) == 3, "given up: no fourth attempt"


def test_chromium_loads_the_front_channel_frames_under_the_pages_policy(logout, chromium):
    """In a real browser the signed-out page's frames load (the page's CSP allows exactly their origins) with `iss` and
    `sid`, then the page goes on to the client without any script."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server, parties = logout
    parties.clear()
    chromium.get(authorize_url(server, client_id="rp1", redirect_uri=REDIRECT, scope="openid"))
    chromium.find_element(By.ID, "username").send_keys("alice")
    chromium.find_element(By.ID, "password").send_keys(PASSWORD)
    chromium.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(chromium, 20).until(lambda driver: driver.current_url.startswith(REDIRECT))
    chromium.get(server.issuer + "/logout?client_id=rp1&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fbye&state=cr")
    chromium.find_element(By.CSS_SELECTOR, "button[name=confirm]").click()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not parties.visits:
        time.sleep(0.1)
    with parties.lock:
        visits = list(parties.visits)
    assert len(visits) == 1 and visits[0]["client"] == "rp1" and visits[0]["tenant"] == "one" and visits[0]["iss"] == server.issuer
    [token] = parties.wait_for("rp1")
    assert claims_of(server, token).claims["sid"] == visits[0]["sid"]
    WebDriverWait(chromium, 20).until(lambda driver: driver.current_url.startswith("http://127.0.0.1:9/bye?state=cr"))
