"""The device authorization grant (RFC 8628): a TV or a terminal shows a user code, the person types it on the hosted
`/device` page, signs in and confirms, and the device's polls collect the tokens.

Played by `gatehouse login --device` (pexpect) with headless Chromium as the person, and by an independent client
written here from the RFC with `requests`; then the refusals: polling too fast, an expired code, a denial, wrong
user codes (limited per client address), clients not allowed the grant, and the device code used twice. On
PostgreSQL a second node answers half of it: the state lives in the database."""
import json
import re
import time

import pexpect
import pytest
import requests

from conftest import ENGINES
from gatehouse_harness import (PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, balanced_nodes, binary, error_of,
                               forms, session_from, verify_id_token)

GRANT = "urn:ietf:params:oauth:grant-type:device_code"
USER_CODE = re.compile(r"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$")
SETTINGS = {"token_lifetimes": {"authorization_code": 5, "device_poll_interval": 1, "device_code": 300},
            "code_guesses": {"max_failures": 4, "window": 900, "cooldown": 600}}


def prepare(server):
    server.add_user("alice", PASSWORD, name="Alice Example")
    server.add_user("bob", PASSWORD, name="Bob Example")
    server.cli("clients", "add", "tv", "--public", "--device-grant", "--name", "Living-room TV")
    server.cli("clients", "add", "console", "--public", "--device-grant")
    server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
    server.add_client("app", "com.example.app:/callback", public=True)


@pytest.fixture(scope="module", params=ENGINES)
def nodes(request):
    """One node on SQLite; on PostgreSQL two nodes sharing the database, as behind a load balancer."""
    with balanced_nodes(request.param, prepare, SETTINGS, shared_issuer=False) as started:
        yield started


def start(node, client_id="tv", scope="openid profile offline_access", **extra):
    return requests.post(node.issuer + "/device_authorization", data={"client_id": client_id, "scope": scope, **extra}, timeout=10)


def poll(node, device_code, client_id="tv"):
    return requests.post(node.issuer + "/token", data={"grant_type": GRANT, "device_code": device_code, "client_id": client_id},
                         timeout=10)


def poll_until_answered(node, device_code, interval, deadline=30):
    """Polls as RFC 8628 §3.5 asks: wait the interval, add 5 seconds on slow_down; the first answer that is not pending."""
    ends = time.monotonic() + deadline
    while time.monotonic() < ends:
        time.sleep(interval)
        response = poll(node, device_code)
        if error_of(response) == "slow_down":
            interval += 5
            continue
        if error_of(response) != "authorization_pending":
            return response
    raise AssertionError("the device's sign-in was never answered")


def enter_code(browser, node, user_code, session=None):
    """Types `user_code` on the `/device` page; the page it leads to."""
    page = browser.get(node.issuer + "/device")
    assert page.status_code == 200 and 'name="user_code"' in page.text
    form = forms(page.text)[0]
    return browser.post(node.issuer + form["action"], {**form["inputs"], "user_code": user_code})


def answer(browser, page, decision):
    """Presses Allow, Deny or Use another account on the confirmation."""
    form = forms(page.text)[0]
    return browser.post(browser.server.issuer + form["action"], {**form["inputs"], "decision": decision})


def test_an_independent_client_following_rfc_8628_gets_tokens(nodes):
    first, last = nodes[0], nodes[-1]
    discovery = requests.get(first.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert discovery["device_authorization_endpoint"] == first.issuer + "/device_authorization"
    assert GRANT in discovery["grant_types_supported"]

    started = start(first)
    assert started.status_code == 200, started.text
    assert started.headers["Cache-Control"] == "no-store"
    codes = started.json()
    assert USER_CODE.match(codes["user_code"]), codes
    assert codes["verification_uri"] == first.issuer + "/device"
    assert codes["verification_uri_complete"] == first.issuer + "/device?user_code=" + codes["user_code"]
    assert codes["interval"] == 1 and 290 <= codes["expires_in"] <= 300
    assert len(codes["device_code"]) >= 43

    # Not answered yet; asked again at once, the server asks for slower polls (RFC 8628 §3.5: five seconds more).
    pending = poll(first, codes["device_code"])
    assert pending.status_code == 400 and error_of(pending) == "authorization_pending"
    # Polls a few milliseconds apart: at most the first pair can straddle a second of the server's clock.
    hurried = [poll(last, codes["device_code"]) for _ in range(2)]
    slowed = [response for response in hurried if error_of(response) == "slow_down"]
    assert slowed, [response.text for response in hurried]
    interval = int(re.search(r"wait (\d+) seconds", slowed[-1].json()["error_description"]).group(1))
    assert interval == 1 + 5 * len(slowed)

    # The person types the code in lower case without its hyphen, signs in, and sees what the device asks for.
    browser = Browser(last)
    login = enter_code(browser, last, codes["user_code"].replace("-", "").lower())
    assert login.status_code == 200 and "/login?flow=" in login.url, login.text
    assert "Living-room TV" in login.text
    confirmation = browser.submit_login(login, "alice", PASSWORD)
    assert confirmation.status_code == 200 and "/device/confirm?id=" in confirmation.url, confirmation.text
    assert "Sign in on “Living-room TV”?" in confirmation.text
    assert "<strong>alice</strong>" in confirmation.text
    for words in ["Know who you are", "See your name and username", "Stay signed in until you sign out"]:
        assert words in confirmation.text
    done = answer(browser, confirmation, "allow")
    assert done.status_code == 200 and "signed in on “Living-room TV”" in done.text

    granted = poll_until_answered(first, codes["device_code"], interval)  # the interval, raised by the slow_downs
    assert granted.status_code == 200, granted.text
    tokens = granted.json()
    assert tokens["token_type"] == "Bearer" and tokens["refresh_token"] and tokens["scope"] == "openid profile offline_access"
    claims = verify_id_token(first, tokens, "tv", None, "RS256")
    assert claims["preferred_username"] == "alice" and "pwd" in claims["amr"]
    userinfo = requests.get(last.issuer + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    assert userinfo.status_code == 200 and userinfo.json()["sub"] == claims["sub"]
    refreshed = requests.post(first.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                                                             "client_id": "tv"}, timeout=10)
    assert refreshed.status_code == 200, refreshed.text

    # Collected once: the device code is spent, and the user code no longer opens anything.
    time.sleep(1)
    again = poll(last, codes["device_code"])
    assert again.status_code == 400 and error_of(again) == "invalid_grant"
    reused = enter_code(Browser(first), first, codes["user_code"])
    assert reused.status_code == 400 and "not valid" in reused.text

    events = json.loads(first.cli("events", "--type", "device_authorization.approved", "--json").stdout)
    assert any(event["client_id"] == "tv" for event in events), events


def test_a_public_client_sending_basic_with_an_empty_secret_as_oidc_agent_does(nodes):
    """oidc-agent authenticates a public client with HTTP Basic `client_id:` and an empty secret (RFC 6749 §2.3.1 form
    encodes both parts); that is the client identifying itself, as a bare client_id is, on every request of the flow."""
    first, last = nodes[0], nodes[-1]
    empty_secret = ("tv", "")
    started = requests.post(first.issuer + "/device_authorization", data={"scope": "openid profile"}, auth=empty_secret, timeout=10)
    assert started.status_code == 200, started.text
    codes = started.json()
    pending = requests.post(last.issuer + "/token", data={"grant_type": GRANT, "device_code": codes["device_code"]}, auth=empty_secret,
                            timeout=10)
    assert error_of(pending) == "authorization_pending", pending.text
    browser = Browser(last)
    confirmation = browser.submit_login(enter_code(browser, last, codes["user_code"]), "bob", PASSWORD)
    assert answer(browser, confirmation, "allow").status_code == 200
    time.sleep(1)
    granted = requests.post(first.issuer + "/token", data={"grant_type": GRANT, "device_code": codes["device_code"]}, auth=empty_secret,
                            timeout=10)
    assert granted.status_code == 200 and granted.json()["access_token"], granted.text
    # The form's empty client_secret is the same thing; a secret a public client cannot have is still refused.
    assert requests.post(first.issuer + "/device_authorization", data={"client_id": "tv", "client_secret": "", "scope": "openid"},
                         timeout=10).status_code == 200
    guessed = requests.post(first.issuer + "/device_authorization", data={"scope": "openid"}, auth=("tv", "guess"), timeout=10)
    assert guessed.status_code == 401 and error_of(guessed) == "invalid_client"


def test_a_signed_in_browser_goes_straight_to_the_confirmation_and_can_deny(nodes):
    node = nodes[-1]
    browser = Browser(node)
    first = start(node).json()
    confirmation = browser.submit_login(enter_code(browser, node, first["user_code"]), "bob", PASSWORD)
    answer(browser, confirmation, "allow")

    # The browser is signed in now: the next code goes straight to the confirmation, which the person denies.
    codes = start(node).json()
    confirmation = enter_code(browser, node, codes["user_code"])
    assert "/device/confirm?id=" in confirmation.url and "<strong>bob</strong>" in confirmation.text
    denied = answer(browser, confirmation, "deny")
    assert denied.status_code == 200 and "Sign-in denied" in denied.text
    refused = poll_until_answered(node, codes["device_code"], 1)
    assert refused.status_code == 400 and error_of(refused) == "access_denied"
    # Answered once: the same confirmation cannot be turned into an approval.
    late = answer(browser, confirmation, "allow")
    assert late.status_code == 410

    # "Use another account" asks for a sign-in even though the browser has a session.
    third = start(node).json()
    confirmation = enter_code(browser, node, third["user_code"])
    switched = answer(browser, confirmation, "switch")
    assert "/login?flow=" in switched.url, switched.url
    confirmation = browser.submit_login(switched, "alice", PASSWORD)
    assert "<strong>alice</strong>" in confirmation.text

    # The forms carry the browser's CSRF token: one without it changes nothing.
    form = forms(confirmation.text)[0]
    forged = browser.post(node.issuer + form["action"], {"id": form["inputs"]["id"], "decision": "allow"})
    assert forged.status_code == 403
    still_pending = poll(node, third["device_code"])
    assert error_of(still_pending) in ("authorization_pending", "slow_down")
    events = json.loads(node.cli("events", "--type", "device_authorization.denied", "--json").stdout)
    assert events and events[0]["client_id"] == "tv"


def test_wrong_user_codes_are_limited_per_client_address(nodes):
    node = nodes[0]
    codes = start(node).json()
    guesser = Browser(node)
    guesser.session = session_from("127.0.0.77")
    for attempt in range(4):
        wrong = enter_code(guesser, node, "BCDF-GHJK" if codes["user_code"] != "BCDF-GHJK" else "ZZZZ-ZZZZ")
        assert wrong.status_code == 400 and "not valid" in wrong.text, (attempt, wrong.text)
    # The limit (4 here) is reached: even the right code is not looked at from this address now.
    blocked = enter_code(guesser, node, codes["user_code"])
    assert blocked.status_code == 429 and "Too many wrong codes" in blocked.text
    # Another address is not blocked, and the code still works there.
    other = Browser(node)
    other.session = session_from("127.0.0.78")
    login = enter_code(other, node, codes["user_code"])
    assert login.status_code == 200 and "/login?flow=" in login.url


def test_the_endpoint_refuses_clients_and_requests_it_must_not_serve(nodes):
    node = nodes[0]
    not_allowed = start(node, client_id="app")
    assert not_allowed.status_code == 400 and error_of(not_allowed) == "unauthorized_client"
    confidential = requests.post(node.issuer + "/device_authorization", data={"scope": "openid"}, auth=("web", "wrong secret"), timeout=10)
    assert confidential.status_code == 401 and error_of(confidential) == "invalid_client"
    unknown = start(node, client_id="nobody")
    assert unknown.status_code == 401 and error_of(unknown) == "invalid_client"
    assert error_of(start(node, scope="openid admin:read")) == "invalid_scope"
    assert error_of(start(node, scope="")) == "invalid_scope"
    assert error_of(start(node, scope="openid telepathy")) == "invalid_scope"
    # Another client cannot collect the tv's tokens, and a made-up device code is refused.
    codes = start(node).json()
    assert error_of(poll(node, codes["device_code"], client_id="app")) == "unauthorized_client"
    assert error_of(poll(node, codes["device_code"], client_id="console")) == "invalid_grant"
    assert error_of(poll(node, "not-a-device-code")) == "invalid_grant"
    missing = requests.post(node.issuer + "/token", data={"grant_type": GRANT, "client_id": "tv"}, timeout=10)
    assert missing.status_code == 400 and error_of(missing) == "invalid_request"
    # A link alone starts nothing: verification_uri_complete only fills in the form.
    filled = Browser(node).get(codes["verification_uri_complete"])
    assert filled.status_code == 200 and f'value="{codes["user_code"]}"' in filled.text and "/login" not in filled.url


def test_an_unanswered_code_expires(tmp_path):
    node = Server(config={**SETTINGS, "token_lifetimes": {"device_poll_interval": 1, "device_code": 5}})
    try:
        node.cli("clients", "add", "tv", "--public", "--device-grant")
        codes = start(node).json()
        assert codes["expires_in"] == 5
        time.sleep(6)
        assert error_of(poll(node, codes["device_code"])) == "expired_token"
        late = enter_code(Browser(node), node, codes["user_code"])
        assert late.status_code == 400 and "not valid" in late.text
    finally:
        node.stop()


def test_the_terminal_signs_in_with_a_code_typed_in_chromium(nodes, chromium, tmp_path):
    """`gatehouse login --device` in one terminal; the person types the printed code on `/device` in a real browser."""
    from selenium.webdriver.common.by import By

    from browser_steps import click_and_wait, press

    node = nodes[-1]
    env = {"GATEHOUSE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    child = pexpect.spawn(binary(), ["login", "--device", "--issuer", nodes[0].issuer, "--client-id", "tv"], env=env,
                          encoding="utf-8", timeout=60)
    try:
        child.expect(r"open (\S+) on your phone or computer and enter the code\s+([B-Z]{4}-[B-Z]{4})")
        page, user_code = child.match.group(1), child.match.group(2)
        assert page == nodes[0].issuer + "/device" and USER_CODE.match(user_code)
        chromium.get(node.issuer + "/device")
        chromium.find_element(By.ID, "user_code").send_keys(user_code.lower())
        click_and_wait(chromium, chromium.find_element(By.CSS_SELECTOR, "button[type=submit]"))
        chromium.find_element(By.ID, "username").send_keys("alice")
        chromium.find_element(By.ID, "password").send_keys(PASSWORD)
        press(chromium, "submit")
        assert "Living-room TV" in chromium.find_element(By.TAG_NAME, "h1").text
        click_and_wait(chromium, chromium.find_element(By.CSS_SELECTOR, "button[name=decision][value=allow]"))
        assert "signed in" in chromium.find_element(By.TAG_NAME, "h1").text
        child.expect(r"Signed in as alice \(Alice Example\)")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    whoami = pexpect.run(binary(), args=["whoami", "--json"], env=env, withexitstatus=True, encoding="utf-8")
    assert whoami[1] == 0 and '"alice"' in whoami[0], whoami


def test_the_terminal_reports_a_denial(nodes, tmp_path):
    node = nodes[0]
    env = {"GATEHOUSE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    child = pexpect.spawn(binary(), ["login", "--device", "--issuer", node.issuer, "--client-id", "tv"], env=env,
                          encoding="utf-8", timeout=60)
    try:
        child.expect(r"enter the code\s+([B-Z]{4}-[B-Z]{4})")
        browser = Browser(node)
        confirmation = browser.submit_login(enter_code(browser, node, child.match.group(1)), "alice", PASSWORD)
        answer(browser, confirmation, "deny")
        child.expect("denied on the other device")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus != 0
    # A client the operator did not allow gets a clear message and a non-zero exit.
    refused = pexpect.run(binary(), args=["login", "--device", "--issuer", node.issuer, "--client-id", "app"], env=env,
                          withexitstatus=True, encoding="utf-8", timeout=30)
    assert refused[1] != 0 and "unauthorized_client" in refused[0], refused
