"""Approve on your phone: a sign-in's second factor pushed to the authenticator app through stand-ins for APNs
(HTTP/2 over TLS, provider tokens) and FCM (service account, HTTP v1), answered by `gatehouse authenticator push`
(the SDK) with the number the page shows and the PIN. In headless Chromium the page shows the number and signs in
by itself once the app approves; without JavaScript its button does the same."""
import html
import json
import re
import time
from urllib.parse import urljoin

import pytest
from selenium.webdriver.common.by import By

from browser_steps import page_node, press, sign_in, signed_in
from gatehouse_harness import PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, authenticator, authorize_url, forms, latest_code, outbox, Server
from hook_receiver import Receiver, SECRET
from push_standins import APNsStandIn, FCMStandIn

PIN = "1357"
APNS_TOKEN = "7f3a9c" * 10 + "abcd"


@pytest.fixture(scope="module")
def push(tmp_path_factory):
    """A server whose web client asks for a push as the second factor, with both push services standing in."""
    directory = tmp_path_factory.mktemp("push")
    apns, fcm = APNsStandIn(directory), FCMStandIn(directory)
    server = Server(config={
        "client_sign_on": {"web": {"second_factor": "required", "factors": ["push", "totp"]}, "quick": {"push_sign_in": True}},
        "authenticator": {"registrations_per_hour": 20},
        # A new push may follow at once: the resend delay is tested in Swift.
        "one_time_codes": {"resend_delay": 0},
        "push": {"apns": apns.settings(), "fcm": fcm.settings(), "timeout": 5},
    })
    try:
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        # Signs in by a push instead of the password.
        server.add_client("quick", WEB_REDIRECT, secret=WEB_SECRET)
        yield server, apns, fcm
    finally:
        server.stop()
        apns.stop()
        fcm.stop()


def register(server, home, username, platform, token):
    """A device identity for `username`, its PIN set, its pushes going to `token` on `platform`."""
    email = f"{username}@example.com"
    server.add_user(username, PASSWORD, email=email)
    identity = authenticator(home, "register", "--service", server.issuer, "--email", email, "--no-wait").stdout.strip()
    authenticator(home, "confirm", identity, "--code", latest_code(server, email))
    authenticator(home, "set-pin", identity, "--pin-stdin", stdin=PIN + "\n")
    registered = authenticator(home, "push-token", identity, "--platform", platform, "--token", token)
    assert platform in registered.stdout
    listed = json.loads(server.cli("devices", "list", "--user", username, "--json").stdout)
    assert [device["push"] for device in listed] == [platform]
    return identity


def wait_for(received, count):
    for _ in range(100):
        if len(received) >= count:
            return received[count - 1]
        time.sleep(0.1)
    raise AssertionError(f"expected {count} pushes, got {len(received)}")


def test_apns_push_with_number_matching_signs_chromium_in(push, chromium, tmp_path):
    server, apns, _ = push
    identity = register(server, tmp_path, "pia", "apns", APNS_TOKEN)
    sign_in(chromium, server, "pia")
    assert page_node(chromium) == "mfa.push"
    number = chromium.find_element(By.CSS_SELECTOR, 'p.label[data-key="number"]').text.strip()
    assert re.fullmatch(r"\d\d", number), number
    delivered = wait_for(apns.received, 1)
    # What Apple received: HTTP/2, the team's provider token, the topic, an alert that expires with the sign-in.
    assert "h2" in apns.protocols and delivered["token"] == APNS_TOKEN
    assert delivered["headers"]["apns-topic"] == APNsStandIn.TOPIC and delivered["headers"]["apns-priority"] == "10"
    assert 0 < int(delivered["headers"]["apns-expiration"]) - time.time() <= 130
    assert delivered["payload"]["gatehouse"]["identity_id"] == identity and "pia" in delivered["payload"]["aps"]["alert"]["body"]
    # The phone: the request with three numbers, the page's number picked, the PIN.
    approved = authenticator(tmp_path, "push", json.dumps(delivered["payload"]), "--number", number, "--pin-stdin", stdin=PIN + "\n")
    assert "Approved" in approved.stdout and "asks to sign in to" in approved.stderr
    # The page's script sees the approval and goes on by itself.
    assert signed_in(chromium)


def test_a_wrong_number_denies_and_is_audited_and_the_page_says_so(push, tmp_path):
    server, apns, _ = push
    register(server, tmp_path, "wes", "apns", "ab" * 32)
    before = len(apns.received)
    browser = Browser(server)
    page = browser.sign_in(authorize_url(server), "wes", PASSWORD)
    assert 'data-node="mfa.push"' in page.text, page.text
    number = int(re.search(r'data-key="number">(\d\d)<', page.text).group(1))
    delivered = wait_for(apns.received, before + 1)
    wrong = next(candidate for candidate in range(10, 100) if candidate != number)
    refused = authenticator(tmp_path, "push", json.dumps(delivered["payload"]), "--number", str(wrong), "--pin-stdin", stdin=PIN + "\n",
                            check=False)
    assert refused.returncode != 0 and "not the number on the sign-in page" in refused.stderr
    form = forms(page.text)[0]
    after = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="check"))
    assert "denied on your phone" in html.unescape(after.text)
    events = json.loads(server.cli("events", "--type", "push.denied", "--json").stdout)
    assert [event["details"]["reason"] for event in events] == ["wrong_number"]
    assert [message for message in outbox(server, "wes@example.com") if message["template"] == "push_denied"]

    # "This wasn't me": a new push, denied and reported from the phone.
    resent = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="resend"))
    assert 'data-key="number"' in resent.text, resent.text
    delivered = wait_for(apns.received, before + 2)
    reported = authenticator(tmp_path, "push", json.dumps(delivered["payload"]), "--deny", "--report")
    assert "reported" in reported.stdout
    reasons = sorted(event["details"]["reason"] for event in json.loads(server.cli("events", "--type", "push.denied", "--json").stdout))
    assert reasons == ["reported", "wrong_number"]


def test_fcm_push_signs_in_without_javascript(push, tmp_path):
    server, _, fcm = push
    register(server, tmp_path, "fay", "fcm", "fcm-registration-token-0123456789")
    browser = Browser(server)
    page = browser.sign_in(authorize_url(server), "fay", PASSWORD)
    number = re.search(r'data-key="number">(\d\d)<', page.text).group(1)
    message = wait_for(fcm.received, 1)
    # The service account's token, by a JWT it signed; the push's data carries the payload as JSON text.
    assert fcm.assertions and fcm.assertions[0]["iss"] == FCMStandIn.CLIENT_EMAIL
    assert message["token"] == "fcm-registration-token-0123456789" and int(message["android"]["ttl"][:-1]) <= 130
    # What the app hands the SDK: FCM's data map.
    authenticator(tmp_path, "push", json.dumps(message["data"]), "--number", number, "--pin-stdin", stdin=PIN + "\n")
    form = forms(page.text)[0]
    done = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="check"))
    assert done.status_code in (302, 303) and done.headers["Location"].startswith(WEB_REDIRECT) and "code=" in done.headers["Location"]


def test_a_token_the_platform_no_longer_knows_is_forgotten(push, tmp_path):
    server, apns, _ = push
    token = "cd" * 32
    register(server, tmp_path, "uma", "apns", token)
    apns.unregistered.add(token)
    browser = Browser(server)
    page = browser.sign_in(authorize_url(server), "uma", PASSWORD)
    assert 'data-node="mfa.push"' in page.text
    for _ in range(100):
        if any(refusal["reason"] == "Unregistered" for refusal in apns.refused):
            break
        time.sleep(0.1)
    # Forgotten: the identity has no push token left, so the next sign-in cannot offer a push.
    def pushes_of_uma():
        return [device.get("push") for device in json.loads(server.cli("devices", "list", "--json").stdout) if device["username"] == "uma"]
    for _ in range(50):
        if pushes_of_uma() == [None]:
            break
        time.sleep(0.1)
    assert pushes_of_uma() == [None]
    again = Browser(server).sign_in(authorize_url(server), "uma", PASSWORD)
    assert 'data-node="mfa.push"' not in again.text


def test_a_push_instead_of_the_password_in_chromium(push, chromium, tmp_path):
    server, apns, _ = push
    register(server, tmp_path, "quinn", "apns", "ef" * 32)
    before = len(apns.received)
    chromium.delete_all_cookies()
    chromium.get(authorize_url(server, client_id="quick"))
    chromium.find_element(By.ID, "username").send_keys("quinn")
    press(chromium, "push")
    assert page_node(chromium) == "login.push"
    number = chromium.find_element(By.CSS_SELECTOR, 'p.label[data-key="number"]').text.strip()
    delivered = wait_for(apns.received, before + 1)
    authenticator(tmp_path, "push", json.dumps(delivered["payload"]), "--number", number, "--pin-stdin", stdin=PIN + "\n")
    assert signed_in(chromium)
    # A name that is no account: the same page and a number, and no push goes anywhere.
    sent = len(apns.received)
    browser = Browser(server)
    page = browser.get(authorize_url(server, client_id="quick"))
    form = forms(page.text)[0]
    shown = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], username="nobody-at-all", action="push"))
    assert 'data-node="login.push"' in shown.text and re.search(r'data-key="number">\d\d<', shown.text)
    time.sleep(0.5)
    assert len(apns.received) == sent


def test_after_a_push_instead_of_the_password_a_hook_decides(tmp_path):
    """The hook at first_factor is told of an approved push like of a password (factor swk), and its refusal ends the
    sign-in; without JavaScript."""
    apns, receiver = APNsStandIn(tmp_path), Receiver()
    receiver.mode = "decide"
    server = Server(config={
        "client_sign_on": {"quick": {"push_sign_in": True}},
        "authenticator": {"registrations_per_hour": 20},
        "push": {"apns": apns.settings(), "timeout": 5},
        "hooks": [{"id": "risk", "url": f"http://127.0.0.1:{receiver.port}/hooks/risk", "secret": SECRET, "points": ["first_factor"],
                   "timeout": 1}],
    })
    try:
        server.add_client("quick", WEB_REDIRECT, secret=WEB_SECRET)
        for count, username in enumerate(("alice", "mallory"), start=1):
            register(server, tmp_path / username, username, "apns", f"{count:02x}" * 32)
            browser = Browser(server)
            page = browser.get(authorize_url(server, client_id="quick"))
            form = forms(page.text)[0]
            shown = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], username=username, action="push"))
            number = re.search(r'data-key="number">(\d\d)<', shown.text).group(1)
            delivered = wait_for(apns.received, count)
            authenticator(tmp_path / username, "push", json.dumps(delivered["payload"]), "--number", number, "--pin-stdin", stdin=PIN + "\n")
            form = forms(shown.text)[0]
            done = browser.post(urljoin(shown.url, form["action"]), dict(form["inputs"], action="check"))
            assert done.status_code in (302, 303) and done.headers["Location"].startswith(WEB_REDIRECT), done.text[:300]
            told = receiver.requests[-1]
            assert told["type"] == "first_factor" and told["factor"] == "swk" and told["user"]["username"] == username
            if username == "alice":
                assert "code=" in done.headers["Location"]
            else:
                assert "error=access_denied" in done.headers["Location"] and "code=" not in done.headers["Location"]
        assert receiver.bad_signatures == 0
    finally:
        server.stop()
        apns.stop()
        receiver.stop()
