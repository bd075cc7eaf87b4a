"""Signing in with other identity providers, end to end over loopback: a second Gatehouse and an independent OpenID
provider (oidc-provider-mock, from PyPI) as upstreams of the first in headless Chromium, a GitHub-shaped OAuth 2.0
stand-in, linking to existing accounts only after proof, an app's flow resumed through its redirect URI, and every
refusal (tampered or replayed state, spoiled ID tokens, an upstream that says no, is down or too slow) an error on
the node, never a server error."""
from __future__ import annotations

import html
import re
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_steps import click_and_wait, press, sign_out, signed_in
from gatehouse_harness import (APP_REDIRECT, PASSWORD, binary, RFC7636_VERIFIER, WEB_REDIRECT, WEB_SECRET, Server, authorize_url, begin,
                               closed_port, exchange, free_port, latest_code, redeem, start, submit, verify_id_token)
from upstream_standin import StandIn, Visit

CORP_SECRET = "corp-downstream-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def corp():
    """The upstream Gatehouse, on `localhost` so that its cookies and the first server's (on 127.0.0.1) stay apart."""
    server = Server(host_name="localhost")
    server.add_user("carol", PASSWORD, email="carol@corp.example", name="Carol Corp")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def mock_op():
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    issuer = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(issuer + "/.well-known/openid-configuration", timeout=2).status_code == 200:
                break
        except requests.ConnectionError:
            time.sleep(0.2)
    else:
        process.kill()
        raise RuntimeError("oidc-provider-mock did not start")
    yield issuer
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def standin():
    server = StandIn()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def client_key(tmp_path_factory):
    """The P-256 key Gatehouse signs its private_key_jwt assertions with; the stand-in knows its public half."""
    from joserfc.jwk import ECKey
    key = ECKey.generate_key("P-256")
    path = tmp_path_factory.mktemp("keys") / "client.pem"
    path.write_bytes(key.as_pem(private=True))
    return key, str(path)


@pytest.fixture(scope="module")
def nowhere():
    """The issuer of the provider that is down: its port refuses connections for the whole module."""
    sock = closed_port()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


@pytest.fixture(scope="module")
def server(corp, mock_op, standin, client_key, nowhere):
    key, key_path = client_key
    standin.client_keys["keyed-client"] = ECKey_public(key)
    providers = [
        {"id": "corp", "name": "Corp", "issuer": corp.issuer, "client_id": "downstream", "client_secret": CORP_SECRET, "trust_email": True},
        {"id": "mock", "name": "Mock ID", "issuer": mock_op, "client_id": "gatehouse", "client_secret": "any", "trust_email": True,
         "client_authentication": "client_secret_post"},
        # The same provider, not trusted for its addresses.
        {"id": "untrusted", "name": "Elsewhere", "issuer": mock_op, "client_id": "gatehouse", "client_secret": "any"},
        {"id": "github", "preset": "github", "client_id": StandIn.CLIENT_ID, "client_secret": StandIn.CLIENT_SECRET,
         "authorization_endpoint": standin.issuer + "/login/oauth/authorize", "token_endpoint": standin.issuer + "/login/oauth/access_token",
         "userinfo_endpoint": standin.issuer + "/user", "emails_endpoint": standin.issuer + "/user/emails",
         "client_authentication": "client_secret_post", "keep_tokens": True},
        {"id": "spoiled", "name": "Stand-in OIDC", "issuer": standin.issuer, "client_id": StandIn.CLIENT_ID,
         "client_secret": StandIn.CLIENT_SECRET, "timeout": 2},
        {"id": "keyed", "name": "Keyed", "issuer": standin.issuer, "client_id": "keyed-client",
         "client_authentication": "private_key_jwt", "private_key_file": key_path, "key_id": "k1"},
        {"id": "posted", "name": "Posted", "issuer": standin.issuer, "client_id": StandIn.CLIENT_ID, "client_secret": StandIn.CLIENT_SECRET,
         "response_mode": "form_post"},
        # A multi-tenant issuer, as Microsoft's preset configures it: endpoints given, `{tenantid}` matched against `tid`.
        {"id": "tenants", "name": "Tenants", "issuer": standin.issuer + "/{tenantid}/v2.0", "client_id": StandIn.CLIENT_ID,
         "client_secret": StandIn.CLIENT_SECRET, "authorization_endpoint": standin.issuer + "/authorize",
         "token_endpoint": standin.issuer + "/token", "jwks_uri": standin.issuer + "/jwks", "userinfo_endpoint": standin.issuer + "/userinfo"},
        {"id": "mfa-trusted", "name": "Trusted MFA", "issuer": standin.issuer, "client_id": StandIn.CLIENT_ID,
         "client_secret": StandIn.CLIENT_SECRET, "trust_mfa": True},
        {"id": "down", "name": "Nowhere", "issuer": nowhere, "client_id": "x", "client_secret": "y", "timeout": 2},
        # Takes ID tokens apps obtained themselves (a native sheet), for the app com.example.ios.
        {"id": "native", "name": "Native", "issuer": standin.issuer, "client_id": StandIn.CLIENT_ID, "client_secret": StandIn.CLIENT_SECRET,
         "trust_email": True, "native": True, "native_audiences": ["com.example.ios"]},
    ]
    downstream = Server(config={"identity_providers": providers, "registration": {"enabled": True, "verify_email": True}})
    downstream.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
    downstream.add_client("app", APP_REDIRECT, public=True)
    # The terminal client receives a provider's answer on a loopback port (RFC 8252): any port matches this one.
    downstream.add_client("gatehouse-cli", "http://127.0.0.1/callback", public=True, extra=["--redirect-uri", "dev.gatehouse.cli:/callback"])
    downstream.add_user("erin", PASSWORD, email="erin@example.org")
    downstream.add_user("victim", PASSWORD, email="victim@example.org")
    corp.add_client("downstream", downstream.issuer + "/login/idp/callback", secret=CORP_SECRET)
    yield downstream
    downstream.stop()


def ECKey_public(key):
    from joserfc.jwk import ECKey
    return ECKey.import_key(key.as_dict(private=False))


def set_mock_user(mock_op, sub, **claims):
    assert requests.put(f"{mock_op}/users/{sub}", json=claims, timeout=10).status_code == 204


def identities(server, username):
    return server.cli("users", "identities", username, "--json").stdout


def users(server):
    import json
    return {user["username"]: user for user in json.loads(server.cli("users", "list", "--json").stdout)}


def signed_in_claims(server, code):
    token = redeem(server, code)
    assert token.status_code == 200, token.text
    return verify_id_token(server, token.json(), "web", "n-456", "RS256")


# In a real browser.

def sign_in_through(chromium, server, provider_id):
    chromium.get(authorize_url(server, scope="openid profile email"))
    click_and_wait(chromium, chromium.find_element(By.CSS_SELECTOR, f'a[data-idp="idp:{provider_id}"]'))


def test_a_second_gatehouse_is_an_upstream_in_chromium(chromium, server, corp):
    sign_in_through(chromium, server, "corp")
    # Corp's own sign-in page, in the same browser.
    assert chromium.current_url.startswith(corp.issuer + "/login")
    chromium.find_element(By.ID, "username").send_keys("carol")
    chromium.find_element(By.ID, "password").send_keys(PASSWORD)
    press(chromium, "submit")
    assert signed_in(chromium)
    first = signed_in_claims(server, parse_qs(urlparse(chromium.current_url).query)["code"][0])
    assert "fed" in first["amr"]
    carol = users(server)["carol"]
    assert carol["email"] == "carol@corp.example" and carol["name"] == "Carol Corp" and carol["id"] == first["sub"]
    assert '"provider" : "corp"' in identities(server, "carol") or '"provider": "corp"' in identities(server, "carol")

    # Signed out of the first server only: Corp's session signs in again without a password, to the same account.
    sign_out(chromium, server)
    sign_in_through(chromium, server, "corp")
    assert signed_in(chromium)
    again = signed_in_claims(server, parse_qs(urlparse(chromium.current_url).query)["code"][0])
    assert again["sub"] == first["sub"]
    assert [name for name in users(server) if name.startswith("carol")] == ["carol"]


def test_an_independent_openid_provider_is_an_upstream_in_chromium(chromium, server, mock_op):
    set_mock_user(mock_op, "dave-at-mock", email="dave@mock.example", email_verified=True, name="Dave Mock", preferred_username="dave")
    for attempt in range(2):
        sign_in_through(chromium, server, "mock")
        assert chromium.current_url.startswith(mock_op + "/oauth2/authorize")
        chromium.find_element(By.CSS_SELECTOR, 'input[name="sub"]:not([type="hidden"])').send_keys("dave-at-mock")
        click_and_wait(chromium, chromium.find_element(By.XPATH, '//button[normalize-space()="Authorize"]'))
        assert signed_in(chromium)
        claims = signed_in_claims(server, parse_qs(urlparse(chromium.current_url).query)["code"][0])
        dave = users(server)["dave"]
        assert claims["sub"] == dave["id"] and dave["email"] == "dave@mock.example" and dave["email_verified"] is True
        sign_out(chromium, server)
    assert "dave-at-mock" in identities(server, "dave")


def test_a_github_shaped_oauth2_provider(server, standin):
    visit = Visit(server)
    visit.via_standin("github")
    claims = signed_in_claims(server, visit.code())
    octocat = users(server)["octocat"]
    assert claims["sub"] == octocat["id"] and "fed" in claims["amr"]
    # The primary verified address from /user/emails; the numeric id is the identity's subject.
    assert octocat["email"] == "octocat@github.example" and octocat["email_verified"] is True
    assert "583231" in identities(server, "octocat")
    # client_secret_post and PKCE, as GitHub takes them.
    body = standin.token_requests[-1]["body"]
    assert body["client_id"] == StandIn.CLIENT_ID and body["client_secret"] == StandIn.CLIENT_SECRET and body["code_verifier"]
    # keep_tokens: the provider's tokens are kept sealed, never in clear; other providers' are not kept at all.
    import sqlite3
    with sqlite3.connect(server.database) as database:
        kept = dict(database.execute("SELECT provider, sealed_tokens FROM federated_identities").fetchall())
    assert kept["github"] and "at-" not in kept["github"] and "access_token" not in kept["github"]
    assert all(tokens is None for provider, tokens in kept.items() if provider != "github")


def test_linking_to_an_existing_account_needs_its_password(server, mock_op):
    set_mock_user(mock_op, "erin-upstream", email="erin@example.org", email_verified=True, name="Erin")
    visit = Visit(server)
    visit.via_mock("mock", "erin-upstream")
    assert visit.page.status_code == 200 and visit.node == "login.idp.link"
    assert 'value="erin"' in visit.page.text and "Link your Mock ID account" in visit.page.text
    refused = visit.form_submit("submit", username="erin", password="wrong password")
    assert refused.status_code == 401 and visit.node == "login.idp.link"
    assert "no linked identities" in server.cli("users", "identities", "erin").stdout
    visit.form_submit("submit", username="erin", password=PASSWORD)
    claims = signed_in_claims(server, visit.code())
    assert claims["sub"] == users(server)["erin"]["id"] and claims["amr"] == ["fed", "pwd"]
    assert "erin-upstream" in identities(server, "erin")

    # Linked: the next sign-in goes straight in.
    again = Visit(server)
    again.via_mock("mock", "erin-upstream")
    assert signed_in_claims(server, again.code())["sub"] == claims["sub"]


def test_linking_by_a_code_to_the_verified_address(server, mock_op):
    set_mock_user(mock_op, "erin-second", email="erin@example.org", email_verified=True)
    visit = Visit(server)
    visit.via_mock("mock", "erin-second")
    assert visit.node == "login.idp.link"
    visit.form_submit("email_code")
    assert visit.node == "login.idp.link_code"
    assert visit.form_submit("submit", code="000000").status_code == 401
    visit.form_submit("submit", code=latest_code(server, "erin@example.org"))
    assert signed_in_claims(server, visit.code())["sub"] == users(server)["erin"]["id"]
    assert "erin-second" in identities(server, "erin")


@pytest.mark.parametrize("provider_id,verified", [("untrusted", True), ("mock", False)])
def test_a_claimed_address_never_reaches_its_account(server, mock_op, provider_id, verified):
    """An upstream identity claiming the victim's address (from a provider not trusted for addresses, or unverified)
    gets no account of the victim's: not silently, not by a code to the victim's mailbox."""
    sub = f"mallory-{provider_id}"
    set_mock_user(mock_op, sub, email="victim@example.org", email_verified=verified, preferred_username="victim")
    before = users(server)
    visit = Visit(server)
    visit.via_mock(provider_id, sub)
    assert visit.node == "login.idp.link"
    assert 'value="victim"' not in visit.page.text and 'value="email_code"' not in visit.page.text
    assert visit.form_submit("submit", username="victim", password="guessed password").status_code == 401
    assert "no linked identities" in server.cli("users", "identities", "victim").stdout
    assert users(server).keys() == before.keys()


def test_an_unproven_address_does_not_keep_its_owner_out(server, mock_op):
    """Through the provider not trusted for addresses anyone can make an account carrying any address. It stays
    unproven, and whoever proves it — a code to it, or a provider trusted for it — claims it: the owner registers, or
    signs up through the trusted provider, and the squatter's account keeps everything but the address."""
    for sub, email in [("squatter-1", "first-owner@example.net"), ("squatter-2", "second-owner@example.net")]:
        set_mock_user(mock_op, sub, email=email, email_verified=True, preferred_username=sub)
        Visit(server).via_mock("untrusted", sub)
    squatters = users(server)
    assert squatters["squatter-1"]["email"] == "first-owner@example.net" and not squatters["squatter-1"]["email_verified"]

    # The first address's owner registers with it: a code comes to it (not a notice that it has an account), proves it.
    flow = begin(server, "registration")["flow_id"]
    answer = submit(server, flow, {"given_name": "First", "family_name": "Owner", "email": "first-owner@example.net", "username": "first-owner",
                                   "new_password": "a long and unusual passphrase 11"}).json()
    assert answer["node"]["id"] == "register.verify_email", answer
    done = submit(server, flow, {"code": latest_code(server, "first-owner@example.net")}).json()
    assert done["status"] == "success", done

    # The second's owner signs up through the provider trusted for addresses: a new account, not a link to the squatter's.
    set_mock_user(mock_op, "second-owner", email="second-owner@example.net", email_verified=True, preferred_username="second-owner")
    visit = Visit(server)
    visit.via_mock("mock", "second-owner")
    assert visit.node != "login.idp.link"
    signed_in = signed_in_claims(server, visit.code())

    after = users(server)
    assert after["first-owner"]["email"] == "first-owner@example.net" and after["first-owner"]["email_verified"]
    assert signed_in["sub"] == after["second-owner"]["id"] and after["second-owner"]["email_verified"]
    for squatter in ["squatter-1", "squatter-2"]:
        assert after[squatter]["email"].endswith("@released.invalid") and not after[squatter]["email_verified"], after[squatter]
    import json
    claimed = json.loads(server.cli("events", "--type", "account.updated", "--json", "--limit", "10000").stdout)
    assert sorted(event["details"]["email.before"] for event in claimed if event["details"].get("by") == "address_claimed") == [
        "first-owner@example.net", "second-owner@example.net"]


def test_an_apps_flow_resumes_through_its_redirect_uri(server, mock_op):
    set_mock_user(mock_op, "app-user", email="app-user@mock.example", email_verified=True)
    flow = start(server).json()
    idp = next(action for action in flow["node"]["actions"] if action["id"] == "idp:mock")
    assert idp["type"] == "idp" and idp["url"].startswith(server.issuer)
    # The app's browser session: no cookies of the app's flow, only the URL.
    browser = requests.Session()
    authorization = browser.get(idp["url"], allow_redirects=False, timeout=10).headers["Location"]
    callback = browser.post(authorization, data={"sub": "app-user"}, allow_redirects=False, timeout=10).headers["Location"]
    back = browser.get(callback, allow_redirects=False, timeout=10)
    assert back.status_code == 302 and back.headers["Location"].startswith(APP_REDIRECT + "?")
    returned = {key: values[0] for key, values in parse_qs(urlparse(back.headers["Location"]).query).items()}
    done = submit(server, flow["flow_id"], returned, action="idp_callback").json()
    assert done["status"] == "success", done
    assert exchange(server, done["authorization"]["code"]).status_code == 200
    # The same answer again: the flow is finished.
    assert submit(server, flow["flow_id"], returned, action="idp_callback").status_code == 404


@pytest.mark.parametrize("mode,message", [
    ("wrong_iss", "could not be verified"), ("wrong_aud", "could not be verified"), ("expired", "could not be verified"),
    ("nonce_mismatch", "could not be verified"), ("alg_none", "could not be verified"), ("hs256_public_key", "could not be verified"),
    ("token_error", "did not confirm the sign-in"), ("access_denied", "was cancelled or not allowed"),
])
def test_a_spoiled_answer_is_an_error_on_the_node(server, standin, mode, message):
    standin.mode = mode
    try:
        visit = Visit(server)
        response = visit.via_standin("spoiled")
    finally:
        standin.mode = "good"
    assert response.status_code == 401 and message in html.unescape(response.text) and visit.node == "login.credentials"
    # The flow goes on: the same sign-in, done right, signs in.
    visit.page = response
    visit.via_standin("spoiled")
    assert signed_in_claims(server, visit.code())["amr"] == ["fed"]


def test_tampered_and_replayed_state(server, standin):
    visit = Visit(server)
    authorization = visit.go("spoiled")
    callback = visit.session.get(authorization, allow_redirects=False, timeout=10).headers["Location"]
    tampered = re.sub(r"state=([^&]+)", lambda m: "state=" + m.group(1)[:-4] + "AAAA", callback)
    before = len(failed_sign_ins(server))
    refused = visit.answer(tampered)
    assert refused.status_code == 401 and "This answer from Stand-in OIDC does not belong to this sign-in" in html.unescape(refused.text)
    # The real answer was for the sign-in the tampered one used up: refused too, still naming the provider it went to,
    # in words that read as a sentence and in the audit trail.
    again = visit.answer(callback)
    assert again.status_code == 401 and "This answer from Stand-in OIDC does not belong" in html.unescape(again.text), again.text
    assert "from The identity provider" not in html.unescape(again.text)
    events = failed_sign_ins(server)[before:]
    assert [event["details"].get("provider") for event in events] == ["spoiled", "spoiled"], events
    # A fresh start signs in, and its answer is single use: a replay finds the flow finished.
    visit.page = visit.session.get(visit.session.get(authorize_url(server), timeout=10).url, timeout=10)
    authorization = visit.go("spoiled")
    callback = visit.session.get(authorization, allow_redirects=False, timeout=10).headers["Location"]
    visit.answer(callback)
    visit.code()
    replay = visit.session.get(callback, allow_redirects=False, timeout=10)
    assert replay.status_code == 400 and "expired" in replay.text
    # Another browser cannot bring the answer to someone else's sign-in.
    other = Visit(server)
    authorization = other.go("spoiled")
    callback = other.session.get(authorization, allow_redirects=False, timeout=10).headers["Location"]
    assert requests.get(callback, allow_redirects=False, timeout=10).status_code == 400


def test_an_upstream_that_is_down_or_slow(server, standin):
    visit = Visit(server)
    began = time.monotonic()
    down = visit.session.get(visit.provider_url("down"), allow_redirects=False, timeout=30)
    assert down.status_code == 502 and "could not be reached" in html.unescape(down.text)
    assert time.monotonic() - began < 10
    standin.mode = "slow"
    try:
        began = time.monotonic()
        response = visit.via_standin("spoiled")
    finally:
        standin.mode = "good"
    assert response.status_code == 502 and "could not be reached" in html.unescape(response.text)
    assert time.monotonic() - began < 10


def test_unlinking_keeps_a_way_to_sign_in(server):
    refused = server.cli("users", "identities", "octocat", "--unlink", "github", check=False)
    assert refused.returncode != 0 and "only way to sign in" in refused.stderr
    assert server.cli("users", "identities", "erin", "--unlink", "mock").returncode == 0
    assert "erin-upstream" not in identities(server, "erin")


def failed_sign_ins(server):
    import json
    return json.loads(server.cli("events", "--type", "sign_in.failed", "--json", "--limit", "10000").stdout)


def test_providers_list_and_check(server):
    listed = server.cli("providers", "list").stdout
    assert "corp" in listed and "/login/idp/callback" in listed
    # The server runs with `serve --port`, which the configuration does not know: the list says what it assumed…
    assert "This assumes the issuer http://127.0.0.1:8080 (no issuer is configured)" in listed, listed
    # …and with the issuer the server really uses, it is exact.
    exact = server.cli("providers", "list", "--issuer", server.issuer).stdout
    assert f"Register this redirect URI at each provider: {server.issuer}/login/idp/callback" in exact and "assumes" not in exact
    checked = server.cli("providers", "check", check=False)
    assert checked.returncode == 1
    assert "✓ corp: ready" in checked.stdout and "✓ mock: ready" in checked.stdout and "✗ down:" in checked.stdout
    # What happened, in plain words: not a transport error's own text.
    lines = checked.stdout.splitlines()
    down = lines[lines.index("✗ down:") + 1]
    assert "/.well-known/openid-configuration: the connection was refused (nothing listens there)" in down, checked.stdout
    assert "error set" not in checked.stdout and "errno" not in checked.stdout, down


def browse_to_loopback(url):
    """The browser's part of a terminal sign-in: the provider's page (the stand-in approves at once) and back, ending
    at the terminal's loopback listener, whose page is returned."""
    session = requests.Session()
    response = session.get(url, allow_redirects=False, timeout=10)
    for _ in range(5):
        if response.status_code not in (302, 303):
            return response
        response = session.get(response.headers["Location"], allow_redirects=False, timeout=30)
    raise AssertionError("too many redirects")


def test_the_terminal_receives_the_answer_on_a_loopback_port(server, standin, tmp_path):
    standin.claims = dict(standin.claims, sub="terminal-user", email="terminal@example.net", preferred_username="terminal")
    process = subprocess.Popen(
        [binary(), "login", "--issuer", server.issuer, "--identity-provider", "spoiled", "--no-browser", "--json", "--home", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        line = ""
        while "http" not in line:
            line = process.stderr.readline()
            assert line, "the terminal printed no URL"
        url = line.strip()
        assert url.startswith(server.issuer + "/flows/") and url.endswith("/idp/spoiled")
        page = browse_to_loopback(url)
        assert page.status_code == 200 and "go back to the terminal" in page.text
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 0, err
    import json
    signed_in = json.loads(out)
    assert signed_in["signed_in"] is True and signed_in["username"] == "terminal" and signed_in["client_id"] == "gatehouse-cli"
    assert "terminal-user" in identities(server, "terminal")


def test_the_terminal_refuses_an_unknown_provider(server, tmp_path):
    refused = subprocess.run(
        [binary(), "login", "--issuer", server.issuer, "--identity-provider", "nosuch", "--no-browser", "--home", str(tmp_path)],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert refused.returncode != 0 and "does not offer the identity provider nosuch" in refused.stderr


def with_claims(standin, **claims):
    standin.claims = dict(standin.claims, **claims)


def test_private_key_jwt_towards_the_provider(server, standin):
    with_claims(standin, sub="keyed-user", email="keyed@example.net", preferred_username="keyed")
    visit = Visit(server)
    visit.via_standin("keyed")
    assert signed_in_claims(server, visit.code())["sub"] == users(server)["keyed"]["id"]
    assertion = standin.verified_assertions[-1]
    assert assertion["iss"] == assertion["sub"] == "keyed-client" and assertion["aud"] == standin.issuer + "/token"
    assert "client_secret" not in standin.token_requests[-1]["body"] and standin.token_requests[-1]["authorization"] is None


def test_form_post_answers_come_back_as_a_get_with_the_cookie(server, standin):
    """Apple posts its answer across sites, without the SameSite=Lax cookie: Gatehouse sends it on as a GET, which has it."""
    with_claims(standin, sub="posted-user", email="posted@example.net", preferred_username="posted")
    visit = Visit(server)
    authorization = visit.go("posted")
    assert "response_mode=form_post" in authorization
    page = visit.session.get(authorization, timeout=10).text
    fields = dict(re.findall(r'name="(code|state)" value="([^"]+)"', page))
    action = re.search(r'action="([^"]+)"', page).group(1)
    posted = requests.post(action, data=fields, allow_redirects=False, timeout=10)  # no cookie, as across sites
    assert posted.status_code == 303 and posted.headers["Location"].startswith("/login/idp/callback?")
    visit.answer(server.issuer + posted.headers["Location"])
    assert signed_in_claims(server, visit.code())["sub"] == users(server)["posted"]["id"]


def test_a_multi_tenant_issuer_matches_the_tokens_tenant(server, standin):
    with_claims(standin, sub="tenant-user", email="tenant@example.net", preferred_username="tenant")
    standin.mode = "tenant"
    try:
        visit = Visit(server)
        visit.via_standin("tenants")
        assert signed_in_claims(server, visit.code())["sub"] == users(server)["tenant"]["id"]
        standin.mode = "tenant_mismatch"
        refused = Visit(server)
        response = refused.via_standin("tenants")
        assert response.status_code == 401 and "could not be verified" in html.unescape(response.text)
    finally:
        standin.mode = "good"


def test_a_provider_trusted_for_mfa_carries_its_second_factor(server, standin):
    with_claims(standin, sub="mfa-user", email="mfa@example.net", preferred_username="mfa")
    visit = Visit(server)
    visit.via_standin("mfa-trusted")
    assert signed_in_claims(server, visit.code())["amr"] == ["fed", "pwd", "mfa"]
    # The same upstream amr from a provider not trusted for it counts for nothing.
    with_claims(standin, sub="mfa-user-2", email="mfa2@example.net", preferred_username="mfa2")
    visit = Visit(server)
    visit.via_standin("spoiled")
    assert signed_in_claims(server, visit.code())["amr"] == ["fed"]


def test_a_locked_account_stays_locked_through_a_provider(server, standin):
    with_claims(standin, sub="locked-user", email="locked@example.net", preferred_username="lockme")
    visit = Visit(server)
    visit.via_standin("spoiled")
    visit.code()
    server.cli("users", "lock", "lockme")
    again = Visit(server)
    response = again.via_standin("spoiled")
    assert response.status_code == 403 and "locked" in response.text and again.node == "login.credentials"


def test_the_terminal_offers_the_providers_on_the_sign_in_node(server, standin, tmp_path):
    """Interactive: the sign-in node's providers are choices; picking one starts again with the loopback redirect URI."""
    import pexpect
    with_claims(standin, sub="chooser", email="chooser@example.net", preferred_username="chooser")
    session = pexpect.spawn(binary(), ["login", "--issuer", server.issuer, "--no-browser", "--home", str(tmp_path)],
                            encoding="utf-8", timeout=60)
    try:
        session.expect("What next\\?")
        session.expect(r"(\d+)\) Sign in with Stand-in OIDC \(in a browser\)")
        number = session.match.group(1)
        session.expect("Number: ")
        session.sendline(number)
        session.expect(r"(http://127\.0\.0\.1:\d+/flows/[A-Za-z0-9_-]+/idp/spoiled)")
        page = browse_to_loopback(session.match.group(1))
        assert page.status_code == 200
        session.expect("Signed in as chooser")
        session.expect(pexpect.EOF)
    finally:
        session.close()
    assert session.exitstatus == 0


def native_token(standin, expected_nonce, **changes):
    """An ID token as a provider's sheet hands it to the app, signed by joserfc with the stand-in's key."""
    from joserfc import jwt
    now = int(time.time())
    claims = {"iss": standin.issuer, "aud": "com.example.ios", "sub": "native-person", "email": "native@standin.example",
              "email_verified": True, "iat": now, "exp": now + 300, "nonce": expected_nonce}
    claims.update(changes)
    return jwt.encode({"alg": "RS256", "kid": "standin-1"}, claims, standin.key)


def test_an_apps_own_token_signs_in_once_with_the_flows_nonce(server, standin):
    import hashlib

    def nonce_of(answer):
        return next(action for action in answer["node"]["actions"] if action["id"] == "idp:native")["nonce"]

    def hashed(nonce):
        return hashlib.sha256(nonce.encode()).hexdigest()

    flow = start(server).json()
    others = [action for action in flow["node"]["actions"] if action["type"] == "idp" and action["id"] != "idp:native"]
    nonce = nonce_of(flow)
    assert len(nonce) >= 32 and others and all("nonce" not in action and "token_action" not in action for action in others)
    # A renderer that works from the node alone finds the action that hands the token in beside the nonce.
    token_action = next(action for action in flow["node"]["actions"] if action["id"] == "idp:native")["token_action"]
    assert token_action == "idp_token"

    def hand_in(flow_id, token, provider="native"):
        return submit(server, flow_id, {"provider": provider, "id_token": token}, action=token_action).json()

    # Refused, each on the node with idp_invalid_identity: another app, another issuer, expired, another nonce.
    for changes in ({"aud": "com.evil.app"}, {"iss": "http://127.0.0.1:1"}, {"exp": int(time.time()) - 600}, {"nonce": "not-the-nonce"}):
        refused = hand_in(flow["flow_id"], native_token(standin, hashed(nonce), **changes))
        assert refused["status"] == "error" and refused["node"]["messages"][0]["code"] == "idp_invalid_identity", (changes, refused)
        # Each token handed in renews the nonce: the one before is spent.
        assert nonce_of(refused) != nonce
        nonce = nonce_of(refused)
    # A provider that takes no tokens from apps is refused too.
    assert hand_in(flow["flow_id"], native_token(standin, hashed(nonce)), provider="spoiled")["node"]["messages"][0]["code"] == "idp_denied"

    # The current nonce, hashed as Apple's sheet is given it: signed in, an account made from the claims.
    fresh = start(server).json()
    token = native_token(standin, hashed(nonce_of(fresh)))
    done = hand_in(fresh["flow_id"], token)
    assert done["status"] == "success", done
    assert exchange(server, done["authorization"]["code"]).status_code == 200
    assert "native@standin.example" in {user["email"] for user in users(server).values()}
    # The same token in a new flow, whose nonce is another: refused.
    again = start(server).json()
    assert hand_in(again["flow_id"], token)["node"]["messages"][0]["code"] == "idp_invalid_identity"
    # The nonce as it is (Google's SDK passes it so) is taken too.
    last = start(server).json()
    assert hand_in(last["flow_id"], native_token(standin, nonce_of(last)))["status"] == "success"
