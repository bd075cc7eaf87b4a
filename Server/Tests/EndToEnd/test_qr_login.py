"""Website sign-in by QR code, approved with `gatehouse authenticator` and a PIN, over loopback.

The browser is a cookie-keeping HTTP client here (and headless Chromium in the last test); the phone is the
terminal's authenticator, keeping its identities in the SDK's encrypted file store."""
import html
import json
import os
import re
import shutil
import subprocess
import threading
import time
from urllib.parse import urljoin

import pytest
import requests

from gatehouse_harness import CODE_PATTERN, authenticator, Browser, forms, latest_code, outbox, Server, show_qr_code

EMAIL = "demo@example.com"
PIN = "2468"


@pytest.fixture(scope="module")
def demo():
    """The demo server: its relying party offers "Sign in with the app" (the demo's sign-on policy)."""
    # Each test registers its own device for the demo user: more than the three registrations an address may start in an hour.
    server = Server(demo=True, config={"authenticator": {"registrations_per_hour": 20}})
    try:
        yield server
    finally:
        server.stop()


def register(server, home, pin=PIN, email=EMAIL) -> str:
    """Registers a device identity step by step, reading the code from the development outbox; returns its id."""
    before = len(outbox(server, email))
    identity = authenticator(home, "register", "--service", server.issuer, "--email", email, "--no-wait").stdout.strip()
    code = latest_code(server, email, after=before)
    authenticator(home, "confirm", identity, "--code", code)
    result = authenticator(home, "set-pin", identity, "--pin-stdin", stdin=pin + "\n")
    assert f"Registered {identity} for demo" in result.stdout
    return identity


def check(server, browser: Browser, shown):
    """What the page's script does when the live status changes: submit the node once."""
    form = forms(shown.text)[0]
    return browser.post(urljoin(shown.url, form["action"]), dict(form["inputs"], action="check"))


def test_full_sequence_signs_the_browser_in_with_live_status(demo, tmp_path):
    identity = register(demo, tmp_path)
    listed = json.loads(authenticator(tmp_path, "list", "--json").stdout)
    assert [(entry["id"], entry["state"], entry["username"]) for entry in listed] == [(identity, "registered", "demo")]

    browser = Browser(demo)
    browser.session.headers["User-Agent"] = "Mozilla/5.0 (QR test browser)"
    shown, flow, payload = show_qr_code(demo, browser)
    # The page's live status, read as the browser's EventSource reads it, while the app approves.
    statuses: list[str] = []

    def follow():
        with browser.session.get(f"{demo.issuer}/login/app-status?flow={flow}", stream=True, timeout=30) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            for line in stream.iter_lines(decode_unicode=True):
                if line.startswith("data:"):
                    statuses.append(json.loads(line[5:])["status"])
                    if statuses[-1] not in ("pending", "claimed"):
                        return

    listener = threading.Thread(target=follow)
    listener.start()
    time.sleep(0.3)
    approved = authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n")
    assert "Approved" in approved.stdout
    assert "asks to sign in to" in approved.stderr and "as demo" in approved.stderr
    # Where the request came from, as the server saw the browser that showed the code.
    assert re.search(r"Requested from 127\.0\.0\.1 at \d{1,2}:\d{2}:\d{2}.* by Mozilla/5\.0 \(QR test browser\)\.", approved.stderr), approved.stderr
    listener.join(timeout=30)
    assert statuses[0] == "pending" and statuses[-1] == "approved", statuses

    done = check(demo, browser, shown)
    assert done.status_code == 200 and "Signed in as demo" in done.text, done.text
    claims = json.loads(html.unescape(re.search(r'id="id-token-claims">(.*?)</pre>', done.text, re.S).group(1)))
    assert claims["amr"] == ["swk", "pin"] and claims["preferred_username"] == "demo"
    # The access code worked once.
    again = authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n", check=False)
    assert again.returncode != 0 and "The session expired; refresh the page and scan again." in again.stderr


def test_three_wrong_pins_block_and_the_fourth_correct_one_is_refused(demo, tmp_path):
    identity = register(demo, tmp_path)
    browser = Browser(demo)
    _, _, payload = show_qr_code(demo, browser)
    messages = []
    for wrong in ["1111", "2222", "3333"]:
        result = authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=wrong + "\n", check=False)
        assert result.returncode != 0
        messages.append(result.stderr.strip().splitlines()[-1])
        # Each try claims a new code: the first claim used this one up.
        _, _, payload = show_qr_code(demo, browser)
    assert messages == ["Error: Wrong PIN. 2 attempts remain before this identity is blocked.",
                        "Error: Wrong PIN. 1 attempt remains before this identity is blocked.",
                        "Error: This identity is blocked after too many wrong PINs. Delete it and register again."]
    result = authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n", check=False)
    assert result.returncode != 0 and "blocked" in result.stderr
    assert json.loads(authenticator(tmp_path, "list", "--json", "--refresh").stdout)[0]["state"] == "blocked"
    # The way out: delete it (here and at the server), register again, approve.
    authenticator(tmp_path, "delete", identity)
    assert json.loads(authenticator(tmp_path, "list", "--json").stdout) == []
    register(demo, tmp_path)
    assert "Approved" in authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n").stdout


def test_operators_list_unblock_and_remove_device_identities(demo, tmp_path):
    identity = register(demo, tmp_path)
    browser = Browser(demo)
    for wrong in ["1111", "2222", "3333"]:
        _, _, payload = show_qr_code(demo, browser)
        assert authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=wrong + "\n", check=False).returncode != 0
    listed = {entry["id"]: entry for entry in json.loads(demo.cli("devices", "list", "--user", "demo", "--json").stdout)}
    assert listed[identity]["state"] == "blocked" and listed[identity]["wrong_pins"] == 3 and listed[identity]["username"] == "demo"
    assert f"Unblocked {identity}." in demo.cli("devices", "unblock", identity).stdout
    assert json.loads(authenticator(tmp_path, "list", "--json", "--refresh").stdout)[0]["state"] == "registered"
    _, _, payload = show_qr_code(demo, browser)
    assert "Approved" in authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n").stdout
    assert f"Removed {identity}." in demo.cli("devices", "delete", identity).stdout
    _, _, payload = show_qr_code(demo, browser)
    result = authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n", check=False)
    assert result.returncode != 0 and "This identity is not known here; register the device again." in result.stderr
    missing = demo.cli("devices", "unblock", identity, check=False)
    assert missing.returncode != 0 and "There is no registered device identity" in missing.stderr


def test_denying_in_the_app_tells_the_page(demo, tmp_path):
    register(demo, tmp_path)
    browser = Browser(demo)
    shown, _, payload = show_qr_code(demo, browser)
    assert "Denied" in authenticator(tmp_path, "approve", payload, "--deny").stdout
    page = check(demo, browser, shown)
    assert page.status_code == 409 and "The sign-in was cancelled in the app." in page.text
    # The page offers a fresh code.
    form = forms(page.text)[0]
    fresh = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="new_code"))
    assert CODE_PATTERN.search(html.unescape(fresh.text)).group(1) not in payload


def test_service_description_and_app_checks(tmp_path):
    server = Server(config={"authenticator": {"allowed_apps": ["gatehouse-cli"], "minimum_app_version": "2.0.0", "pin_length": 6}})
    try:
        url = server.issuer + "/authenticator"
        for header, status, error in [(None, 406, "app_not_allowed"), ("other-app/9.0", 406, "app_not_allowed"),
                                      ("gatehouse-cli/1.9.9", 412, "app_version_unsupported")]:
            response = requests.get(url, headers={"Gatehouse-App": header} if header else {}, timeout=10)
            assert response.status_code == status and response.json()["error"] == error, response.text
        description = requests.get(url, headers={"Gatehouse-App": "gatehouse-cli/2.0"}, timeout=10).json()
        assert description["pin_length"] == 6 and description["protocol"] == "gatehouse-pin-v1"
        assert description["endpoints"]["sessions"] == url + "/sessions"
        # The terminal authenticator is version 1.0.0: it is told to update, and exits non-zero.
        result = authenticator(tmp_path, "register", "--service", server.issuer, "--email", EMAIL, check=False)
        assert result.returncode != 0 and "Update the app: this service needs version 2.0.0 or later." in result.stderr
        result = authenticator(tmp_path, "approve", "otpauth://totp/x?secret=ABC", "--pin-stdin", stdin="123456\n", check=False)
        assert result.returncode != 0 and "This is not a Gatehouse sign-in code." in result.stderr
    finally:
        server.stop()


def test_verification_by_link_asks_before_confirming(tmp_path):
    server = Server(config={"authenticator": {"verification": "link"}})
    try:
        server.add_user("rosa", "a fine passphrase nobody knows", email="rosa@example.com")
        identity = authenticator(tmp_path, "register", "--service", server.issuer, "--email", "rosa@example.com", "--no-wait").stdout.strip()
        body = outbox(server, "rosa@example.com")[0]["body"]
        link = re.search(r"Open (http\S+) to confirm", body).group(1)
        # Opening the link only shows a question; a mail scanner following it confirms nothing.
        page = requests.get(link, timeout=10)
        assert page.status_code == 200 and "Confirm this device" in page.text
        assert json.loads(authenticator(tmp_path, "list", "--json", "--refresh").stdout)[0]["state"] == "registration_started"
        form = forms(page.text)[0]
        wrong = requests.post(urljoin(link, form["action"]), data=dict(form["inputs"], code="000000"), timeout=10)
        assert wrong.status_code == 400 and "The code is incorrect." in wrong.text
        confirmed = requests.post(urljoin(link, form["action"]), data=form["inputs"], timeout=10)
        assert confirmed.status_code == 200 and "Device confirmed" in confirmed.text
        result = authenticator(tmp_path, "set-pin", identity, "--pin-stdin", stdin="97531\n", check=False)
        assert result.returncode != 0 and "The PIN must be 4 digits." in result.stderr
        assert "Registered" in authenticator(tmp_path, "set-pin", identity, "--pin-stdin", stdin="9753\n").stdout
        # The link works once.
        assert "expired" in requests.get(link, timeout=10).text
    finally:
        server.stop()


ZBARIMG = shutil.which("zbarimg")


@pytest.mark.skipif(not ZBARIMG, reason="zbar-tools is not installed (apt-get install zbar-tools)")
def test_chromium_shows_a_qr_code_that_decodes_and_signs_in_without_a_click(demo, chromium, tmp_path, screenshots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    register(demo, tmp_path)
    browser = chromium
    browser.get(demo.issuer + "/demo")
    browser.find_element(By.ID, "sign-in").click()
    browser.find_element(By.CSS_SELECTOR, 'button[value="app"]').click()
    WebDriverWait(browser, 20).until(lambda driver: driver.find_elements(By.CSS_SELECTOR, 'form[data-node="login.app"]'))
    # The live status script runs under the page's CSP and says it is waiting.
    WebDriverWait(browser, 20).until(lambda driver: "Waiting" in driver.find_element(By.ID, "app-login-status").text)
    screenshot = os.path.join(screenshots, "qr-login.png")
    browser.save_screenshot(screenshot)
    decoded = subprocess.run([ZBARIMG, "--raw", "-q", screenshot], capture_output=True, text=True, timeout=30)
    assert decoded.returncode == 0, decoded.stderr
    payload = decoded.stdout.strip()
    assert payload.startswith(demo.issuer + "/authenticator#")
    # The phone approves; the page notices by itself and completes the sign-in.
    assert "Approved" in authenticator(tmp_path, "approve", payload, "--pin-stdin", stdin=PIN + "\n").stdout
    WebDriverWait(browser, 30).until(lambda driver: driver.current_url.startswith(demo.issuer + "/demo/callback?code="))
    assert "Signed in as demo" in browser.find_element(By.TAG_NAME, "h1").text
