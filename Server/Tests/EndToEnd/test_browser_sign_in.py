"""Browser sign-in from the terminal: `gatehouse login --browser` builds the SDK's authorization request (PKCE, state,
nonce), prints it, and listens on a port of 127.0.0.1 (RFC 8252 §7.3); headless Chromium plays the person on the
hosted pages and is sent back to that port. Then single sign-on with `prompt=none`, sign-out in the same browser
(`logout --browser`, RP-initiated logout to a loopback port), the provider's refusal afterwards, and a forged answer
at the listener, each ending the terminal with a clear message."""
import json
import re
from urllib.parse import parse_qs, urlparse

import pexpect
import pytest
import requests

from gatehouse_harness import PASSWORD, Server, binary

LOOPBACK = "http://127.0.0.1/callback"
URL = re.compile(r"Continue in your browser at\s+(\S+)")


@pytest.fixture(scope="module")
def server():
    started = Server()
    started.add_user("alice", PASSWORD, name="Alice Example")
    started.cli("clients", "add", "desktop", "--public", "--name", "Desktop app", "--redirect-uri", LOOPBACK,
                "--post-logout-redirect-uri", LOOPBACK)
    try:
        yield started
    finally:
        started.stop()


def terminal(server, home, *args):
    env = {"GATEHOUSE_HOME": str(home), "PATH": "/usr/bin:/bin"}
    return pexpect.spawn(binary(), [*args, "--issuer", server.issuer, "--client-id", "desktop", "--no-browser"]
                         if args[0] == "login" else [*args, "--no-browser"], env=env, encoding="utf-8", timeout=60)


def printed_url(child, pattern=URL):
    child.expect(pattern)
    return child.match.group(1)


def finish(child):
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_sign_in_single_sign_on_and_sign_out_in_chromium(server, chromium, tmp_path):
    from selenium.webdriver.common.by import By

    from browser_steps import press

    # --no-push: the request's parameters in the URL, to check them (pushed requests are below).
    child = terminal(server, tmp_path, "login", "--browser", "--max-age", "600", "--no-push")
    try:
        url = printed_url(child)
        sent = {key: values[0] for key, values in parse_qs(urlparse(url).query).items()}
        assert url.startswith(server.issuer + "/authorize?")
        assert sent["client_id"] == "desktop" and sent["response_type"] == "code" and sent["max_age"] == "600"
        assert sent["code_challenge_method"] == "S256" and len(sent["code_challenge"]) == 43
        assert len(sent["state"]) >= 43 and len(sent["nonce"]) >= 43
        redirect = urlparse(sent["redirect_uri"])
        assert redirect.scheme == "http" and redirect.hostname == "127.0.0.1" and redirect.port and redirect.path == "/callback"

        chromium.get(url)
        chromium.find_element(By.ID, "username").send_keys("alice")
        chromium.find_element(By.ID, "password").send_keys(PASSWORD)
        press(chromium, "submit")
        # Chromium is back at the terminal's listener, which says where to go next.
        assert chromium.current_url.startswith(f"http://127.0.0.1:{redirect.port}/callback?code=")
        assert "You are signed in" in chromium.find_element(By.TAG_NAME, "body").text
        child.expect(r"Signed in as alice \(Alice Example\)")
    finally:
        assert finish(child) == 0
    whoami = pexpect.run(binary(), args=["whoami", "--json"], env={"GATEHOUSE_HOME": str(tmp_path)}, withexitstatus=True,
                         encoding="utf-8")
    assert whoami[1] == 0 and json.loads(whoami[0][whoami[0].index("{"):])["preferred_username"] == "alice", whoami

    # The browser is signed in at the server: prompt=none signs the terminal in again without a page, this time with
    # its tokens bound to a key (DPoP) that the authorization request named ahead (dpop_jkt).
    # Pushed first (RFC 9126, the default when the server offers it): the browser's URL carries only a reference.
    child = terminal(server, tmp_path, "login", "--browser", "--prompt", "none", "--dpop")
    try:
        url = printed_url(child)
        pushed = parse_qs(urlparse(url).query)
        assert sorted(pushed) == ["client_id", "request_uri"] and pushed["request_uri"][0].startswith("urn:ietf:params:oauth:request_uri:")
        chromium.get(url)
        assert "You are signed in" in chromium.find_element(By.TAG_NAME, "body").text
        child.expect("Signed in as alice")
    finally:
        assert finish(child) == 0
    token = pexpect.run(binary(), args=["token", "--json"], env={"GATEHOUSE_HOME": str(tmp_path)}, encoding="utf-8")
    assert json.loads(token[token.index("{"):])["token_type"] == "DPoP"

    # Signing out in the browser ends the browser's session at the server too.
    child = terminal(server, tmp_path, "logout", "--browser")
    try:
        url = printed_url(child, re.compile(r"Sign out in your browser at\s+(\S+)"))
        assert url.startswith(server.issuer + "/logout?") and "id_token_hint=" in url
        chromium.get(url)
        assert "You are signed out" in chromium.find_element(By.TAG_NAME, "body").text
        child.expect(f"Signed out of {re.escape(server.issuer)}")
    finally:
        assert finish(child) == 0

    # So prompt=none is now refused by the server, and the terminal says so.
    child = terminal(server, tmp_path, "login", "--browser", "--prompt", "none")
    try:
        url = printed_url(child)
        chromium.get(url)
        child.expect("refused the sign-in \\(login_required\\)")
    finally:
        assert finish(child) != 0
    # A pushed request is good once: the same URL again is an error page, not a second sign-in.
    chromium.get(url)
    assert "expired or was used already" in chromium.find_element(By.TAG_NAME, "body").text


def test_a_forged_answer_at_the_listener_is_refused(server, tmp_path):
    """Another program on the machine calls the terminal's port first, with a code of its own: the state gives it away."""
    child = terminal(server, tmp_path, "login", "--browser", "--no-push")
    try:
        sent = parse_qs(urlparse(printed_url(child)).query)
        callback = sent["redirect_uri"][0]
        # A request elsewhere on the port is not the answer; the listener goes on waiting.
        assert requests.get(callback.replace("/callback", "/favicon.ico"), timeout=10).status_code == 404
        answered = requests.get(callback, params={"code": "stolen", "state": "forged", "iss": server.issuer}, timeout=10)
        assert answered.status_code == 200
        child.expect("answer to another sign-in request \\(state mismatch\\)")
    finally:
        assert finish(child) != 0
    # With the request's own state but another issuer's name (a mix-up), the answer is refused too.
    child = terminal(server, tmp_path, "login", "--browser", "--no-push")
    try:
        sent = parse_qs(urlparse(printed_url(child)).query)
        requests.get(sent["redirect_uri"][0], params={"code": "x", "state": sent["state"][0], "iss": "https://attacker.example"},
                     timeout=10)
        child.expect("an answer from https://attacker.example")
    finally:
        assert finish(child) != 0
    # And --device with --browser is a clear usage error.
    both = pexpect.run(binary(), args=["login", "--browser", "--device", "--issuer", server.issuer],
                       env={"GATEHOUSE_HOME": str(tmp_path)}, withexitstatus=True, encoding="utf-8")
    assert both[1] != 0 and "Choose one of --device and --browser" in both[0], both
