"""Two Gatehouse nodes on one PostgreSQL database behave as one server."""
import json
import threading
import time

import pytest
import requests

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import CODE_PATTERN, POSTGRES_URL, authenticator, authorize_url, Browser, drop_postgres_database, error_of, forms, fresh_postgres_database, latest_code, redirect_parameters, refresh, Server

pytestmark = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL is not available: set GATEHOUSE_TEST_POSTGRES_URL (scripts/with-postgres does)")


@pytest.fixture(scope="module")
def nodes():
    url = fresh_postgres_database()
    # Both nodes start at the same moment: migrations and key creation must happen exactly once.
    started: list[Server] = []
    errors: list[Exception] = []

    def start():
        try:
            started.append(Server(database_url=url))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not errors, errors
        a, b = started
        a.add_user("alice", PASSWORD)
        a.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        yield a, b
    finally:
        for node in started:
            node.stop()
        drop_postgres_database(url)


def redeem_at(node, code):
    return requests.post(node.issuer + "/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": WEB_REDIRECT,
        "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}, auth=("web", WEB_SECRET), timeout=30)


def code_via(a, b):
    """Starts the sign-in on node A and submits the form to node B."""
    browser = Browser(a)
    page = browser.get(authorize_url(a))
    assert page.status_code == 200
    form = forms(page.text)[0]
    data = dict(form["inputs"], username="alice", password=PASSWORD)
    response = browser.session.post(b.issuer + "/login", data=data, allow_redirects=False, timeout=30)
    assert response.status_code == 303, response.text
    return redirect_parameters(response)["code"]


def test_schema_and_keys_were_created_once(nodes):
    a, b = nodes
    keys = json.loads(a.cli("keys", "list", "--json").stdout)
    assert sorted(key["algorithm"] for key in keys if key["status"] == "active") == ["ES256", "RS256"]
    assert requests.get(a.issuer + "/jwks", timeout=10).json() == requests.get(b.issuer + "/jwks", timeout=10).json()


def test_flow_started_on_one_node_continues_on_the_other(nodes):
    a, b = nodes
    code = code_via(a, b)
    tokens = redeem_at(a, code)
    assert tokens.status_code == 200, tokens.text
    userinfo = requests.get(b.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens.json()['access_token']}"}, timeout=10)
    assert userinfo.status_code == 200


def test_refresh_replayed_on_the_other_node_revokes_the_family(nodes):
    a, b = nodes
    tokens = redeem_at(a, code_via(a, a)).json()
    rotated = refresh(a, tokens["refresh_token"])
    assert rotated.status_code == 200
    newer = refresh(b, rotated.json()["refresh_token"])  # the client moves on, through the other node
    assert newer.status_code == 200
    replay = refresh(b, tokens["refresh_token"])
    assert replay.status_code == 400 and error_of(replay) == "invalid_grant"
    assert error_of(refresh(a, newer.json()["refresh_token"])) == "invalid_grant"
    assert requests.get(a.issuer + "/userinfo", headers={"Authorization": f"Bearer {newer.json()['access_token']}"},
                        timeout=10).status_code == 401


def test_one_code_redeemed_on_both_nodes_at_once_succeeds_exactly_once(nodes):
    a, b = nodes
    for _ in range(5):
        code = code_via(a, b)
        barrier = threading.Barrier(4)
        statuses = []

        def redeem(node):
            barrier.wait()
            statuses.append(redeem_at(node, code).status_code)

        threads = [threading.Thread(target=redeem, args=(node,)) for node in (a, b, a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [200, 400, 400, 400]


def test_a_client_assertion_is_used_once_across_nodes(nodes, tmp_path):
    """A private_key_jwt assertion's jti is recorded in the shared database: replayed on the other node, or sent to
    both at once, it authenticates exactly once."""
    from joserfc import jwk, jwt
    a, b = nodes
    key = jwk.ECKey.generate_key("P-256", parameters={"kid": "n1"})
    (tmp_path / "keys.json").write_text(json.dumps({"keys": [{**key.as_dict(private=False), "kid": "n1", "alg": "ES256"}]}))
    a.cli("clients", "add", "keyed", "--redirect-uri", WEB_REDIRECT, "--auth-method", "private_key_jwt", "--jwks-file", str(tmp_path / "keys.json"))

    def assertion():
        now = int(time.time())
        claims = {"iss": "keyed", "sub": "keyed", "aud": a.issuer, "jti": f"n-{time.monotonic_ns()}", "exp": now + 60}
        return jwt.encode({"alg": "ES256", "kid": "n1"}, claims, key)

    def introspect(node, client_assertion):
        return requests.post(node.issuer + "/introspect", data={
            "token": "not-a-token", "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": client_assertion}, timeout=30)

    used = assertion()
    assert introspect(a, used).status_code == 200
    replayed = introspect(b, used)
    assert replayed.status_code == 401 and error_of(replayed) == "invalid_client"
    for _ in range(3):
        raced = assertion()
        statuses: list[int] = []
        threads = [threading.Thread(target=lambda node=node: statuses.append(introspect(node, raced).status_code)) for node in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [200, 401], statuses


def test_lockout_counts_failures_on_every_node(nodes):
    a, b = nodes
    a.add_user("gina", PASSWORD)
    statuses = []
    for node in [a, b, a, b, a]:
        browser = Browser(node)
        statuses.append(browser.submit_login(browser.get(authorize_url(node)), "gina", "wrong password!").status_code)
    assert statuses == [401] * 5
    for node in (a, b):
        browser = Browser(node)
        assert browser.submit_login(browser.get(authorize_url(node)), "gina", PASSWORD).status_code == 429


def test_key_rotation_on_one_node_reaches_the_other_without_restart(nodes):
    a, b = nodes
    rotated = {key["kid"] for key in json.loads(a.cli("keys", "rotate", "--json").stdout)}
    deadline = time.monotonic() + 45
    while time.monotonic() < deadline:
        published = {key["kid"] for key in requests.get(b.issuer + "/jwks", timeout=10).json()["keys"]}
        if rotated <= published:
            break
        time.sleep(1)
    assert rotated <= published
    assert len(published) == 4  # the previous keys stay published


def test_qr_sign_in_approved_through_one_node_completes_on_the_other(tmp_path):
    """The QR page's live status and its completion on node B see an approval that reached node A."""

    url = fresh_postgres_database()
    config = {"client_sign_on": {"web": {"app_login": True}}}
    a = Server(database_url=url, config=config)
    b = Server(database_url=url, config=config)
    try:
        a.add_user("alice", PASSWORD)
        a.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        identity = authenticator(tmp_path, "register", "--service", a.issuer, "--email", "alice@example.com", "--no-wait").stdout.strip()
        authenticator(tmp_path, "confirm", identity, "--code", latest_code(a, "alice@example.com"))
        authenticator(tmp_path, "set-pin", identity, "--pin-stdin", stdin="1357\n")

        browser = Browser(a)
        page = browser.get(authorize_url(a))
        form = forms(page.text)[0]
        shown = browser.post(a.issuer + "/login", dict(form["inputs"], action="app"))
        import html as html_module
        code = CODE_PATTERN.search(html_module.unescape(shown.text)).group(1)
        flow = forms(shown.text)[0]["inputs"]["flow"]
        statuses = []

        def follow():
            with browser.session.get(f"{b.issuer}/login/app-status?flow={flow}", stream=True, timeout=30) as stream:
                for line in stream.iter_lines(decode_unicode=True):
                    if line.startswith("data:"):
                        statuses.append(json.loads(line[5:])["status"])
                        if statuses[-1] == "approved":
                            return

        listener = threading.Thread(target=follow)
        listener.start()
        time.sleep(0.3)
        authenticator(tmp_path, "approve", f"{a.issuer}/authenticator#{code}", "--pin-stdin", stdin="1357\n")
        listener.join(timeout=30)
        assert statuses[0] == "pending" and statuses[-1] == "approved", statuses
        done = browser.session.post(b.issuer + "/login", data=dict(forms(shown.text)[0]["inputs"], action="check"),
                                    allow_redirects=False, timeout=30)
        assert done.status_code == 303 and "code" in redirect_parameters(done), done.text
        assert redeem_at(b, redirect_parameters(done)["code"]).status_code == 200
    finally:
        a.stop()
        b.stop()
        drop_postgres_database(url)
