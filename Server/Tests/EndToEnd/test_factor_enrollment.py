"""Second factors set up inside the sign-in (issue 23): a user without one is offered to set one up and answers
"Not now"; at a later sign-in sets up a phone (its code from the outbox, or read out by the voice gateway), signs in
again by call, and sets up email codes — in the terminal client under pexpect and on the hosted pages in headless
Chromium. A number that is not one, wrong codes and a resend within the delay get their errors."""
import json
import os
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pexpect
import pytest

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import Server, binary, latest_code, outbox

CLI_REDIRECT = "dev.gatehouse.cli:/callback"
RESEND_DELAY = 3


class VoiceGateway(BaseHTTPRequestHandler):
    """A voice gateway: records each call request it receives and answers 200."""
    calls: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).calls.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def enrolling():
    """Second factors only for users who set one up, offered after the password and again a day after "Not now";
    every factor may be set up; texts and email go to the outbox, calls to the voice gateway."""
    gateway = ThreadingHTTPServer(("127.0.0.1", 0), VoiceGateway)
    threading.Thread(target=gateway.serve_forever, daemon=True).start()
    server = Server(config={
        "courier": {
            "email": {"delivery": "outbox"}, "sms": {"delivery": "outbox"},
            "voice": {"delivery": "webhook", "webhook": {"url": f"http://127.0.0.1:{gateway.server_address[1]}/voice"}},
        },
        "sign_on": {"second_factor": "if_enrolled", "factors": ["totp", "sms", "voice", "email"], "optional_enrollment": True,
                    "enrollment_reminder_days": 1, "max_code_attempts": 3},
        "one_time_codes": {"resend_delay": RESEND_DELAY},
    })
    try:
        server.add_client("gatehouse-cli", CLI_REDIRECT, public=True)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        yield server
    finally:
        server.stop()
        gateway.shutdown()


def two_days_pass(server, username):
    """The "Not now" was answered two days ago: past the one-day reminder period."""
    with sqlite3.connect(server.database) as database:
        changed = database.execute(
            "UPDATE users SET enrollment_declined_at = enrollment_declined_at - 2 * 86400 WHERE username = ?", (username,)).rowcount
    assert changed == 1


def call_to(number, after):
    """The call request the voice gateway received for `number` after `after` earlier ones, and the code it reads out."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        calls = [call for call in VoiceGateway.calls[after:] if call["to"] == number]
        if calls:
            spoken = calls[-1]["body"].split(" is your")[0]
            return calls[-1], "".join(character for character in spoken if character.isdigit())
        time.sleep(0.1)
    raise AssertionError(f"no call to {number}; the gateway got {VoiceGateway.calls}")


def wrong(code):
    return "111111" if code == "000000" else "000000"


# The terminal client.

def terminal(server, home, *args):
    return pexpect.spawn(binary(), [*args, "--issuer", server.issuer, "--home", str(home)], encoding="utf-8", timeout=60,
                         env=dict(os.environ, COLUMNS="120"))


def choose(child, menu, number):
    child.expect(menu)
    child.expect("Number: ")
    child.sendline(str(number))


def choose_labelled(child, menu, label):
    """Picks the option of `menu` whose label starts with `label`, whatever its number."""
    child.expect(menu)
    child.expect(r"(\d+)\) " + label)
    option = child.match.group(1)
    child.expect("Number: ")
    child.sendline(option)


def answer(child, prompt, text):
    child.expect(prompt)
    child.sendline(text)


def test_terminal_skips_then_sets_up_a_phone_by_text_signs_in_by_call_and_sets_up_email(enrolling, tmp_path):
    enrolling.add_user("ada", PASSWORD)
    child = terminal(enrolling, tmp_path, "login", "--username", "ada")
    answer(child, "Password: ", PASSWORD)
    child.expect("Protect your account")
    choose(child, "What next\\?", 2)  # Not now
    child.expect("Signed in as ada")
    child.expect(pexpect.EOF)
    assert pexpect.run(binary(), args=["logout", "--home", str(tmp_path)], withexitstatus=True)[1] == 0

    # Asked again once the reminder period has passed: a phone, by text message.
    two_days_pass(enrolling, "ada")
    child = terminal(enrolling, tmp_path, "login", "--username", "ada")
    answer(child, "Password: ", PASSWORD)
    child.expect("Protect your account")
    choose(child, "What next\\?", 1)
    choose_labelled(child, "Set up", "Phone: codes by text message or call")
    choose(child, "How should we reach you\\?", 1)
    choose_labelled(child, r"Get codes by", "Text message")
    choose(child, "Add your phone number", 1)
    answer(child, "Mobile number: ", "555 0199")
    child.expect("✗ Enter the number with its country code, e.g. \\+14155550100.")
    choose(child, "Add your phone number", 1)
    answer(child, "Mobile number: ", "+1 (415) 555-0199")
    child.expect("We sent a code by text message to \\+14155550199")
    choose(child, "What next\\?", 2)  # Send a new code, at once
    child.expect("✗ A code was sent a moment ago")
    code = latest_code(enrolling, "+14155550199")
    choose(child, "What next\\?", 1)
    answer(child, "Code: ", wrong(code))
    child.expect("✗ ")
    choose(child, "What next\\?", 1)
    answer(child, "Code: ", code)
    child.expect("Signed in as ada")
    child.expect(pexpect.EOF)

    # Signed out, in again choosing a call: the voice gateway is asked to read out the code.
    assert pexpect.run(binary(), args=["logout", "--home", str(tmp_path)], withexitstatus=True)[1] == 0
    before = len(VoiceGateway.calls)
    child = terminal(enrolling, tmp_path, "login", "--username", "ada")
    answer(child, "Password: ", PASSWORD)
    choose_labelled(child, r"Verify with", "Code read out in a phone call")
    child.expect("ending in 99")
    call, spoken = call_to("+14155550199", before)
    assert call["channel"] == "voice" and call["template"] == "sign_in_code" and len(spoken) == 6
    choose(child, "What next\\?", 1)
    answer(child, "Code: ", spoken)
    child.expect("Signed in as ada")
    child.expect(pexpect.EOF)

    # Email codes, set up by changing two-step verification: ada's address is verified, so its code comes at once.
    child = terminal(enrolling, tmp_path, "enroll", "--username", "ada")
    answer(child, "Password: ", PASSWORD)
    choose_labelled(child, r"Verify with", "Code sent by text message")
    choose(child, "What next\\?", 1)
    answer(child, "Code: ", latest_code(enrolling, "+14155550199"))
    choose_labelled(child, r"What do you want to change\?", "Get codes by email")
    child.expect("Enter the code we sent you")
    choose(child, "What next\\?", 1)
    answer(child, "Code: ", latest_code(enrolling, "ada@example.com"))
    child.expect("Two-step verification updated; signed in as ada")
    child.expect(pexpect.EOF)
    with sqlite3.connect(enrolling.database) as database:
        kinds = database.execute(
            "SELECT kind FROM authenticators WHERE user_id = (SELECT id FROM users WHERE username = 'ada') ORDER BY kind").fetchall()
    assert kinds == [("email",), ("phone",)]


# The hosted pages in Chromium.

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402

from browser_steps import page_node, press, sign_in, sign_out, signed_in  # noqa: E402


def test_hosted_pages_skip_then_set_up_a_phone_by_call(enrolling, chromium):
    browser = chromium
    enrolling.add_user("bea", PASSWORD)
    sign_in(browser, enrolling, "bea")
    assert page_node(browser) == "mfa.enroll.choose"
    press(browser, "skip")
    assert signed_in(browser)
    sign_out(browser, enrolling)

    two_days_pass(enrolling, "bea")
    sign_in(browser, enrolling, "bea")
    assert page_node(browser) == "mfa.enroll.choose"
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=phone]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.method"
    browser.find_element(By.CSS_SELECTOR, "input[name=method][value=voice]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.phone"
    number = browser.find_element(By.ID, "phone_number")
    assert number.get_attribute("type") == "tel" and number.get_attribute("autocomplete") == "tel"
    # The page's pattern lets through what looks like a number; the server reads the digits and refuses these.
    number.send_keys("+1 23-45-6")
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.phone"
    assert browser.find_element(By.ID, "phone_number-error").text == "Enter the number with its country code, e.g. +14155550100."

    # Three wrong codes end the sign-in.
    before = len(VoiceGateway.calls)
    browser.find_element(By.ID, "phone_number").clear()
    browser.find_element(By.ID, "phone_number").send_keys("+44 (0)20 7946 0958")
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.phone_code"
    assert "We're calling +442079460958" in browser.find_element(By.CSS_SELECTOR, "p.hint").text
    call, spoken = call_to("+442079460958", before)
    assert call["channel"] == "voice" and call["template"] == "verification_code"
    press(browser, "resend")  # Call again, at once
    assert browser.find_element(By.ID, "flow-message").text.startswith("A code was sent a moment ago.")
    for attempt in range(3):
        browser.find_element(By.ID, "code").send_keys(wrong(spoken))
        press(browser, "submit")
        if attempt < 2:
            assert page_node(browser) == "mfa.enroll.phone_code" and browser.find_element(By.ID, "code-error").text
    assert "Too many" in browser.find_element(By.TAG_NAME, "body").text
    assert not browser.find_elements(By.CSS_SELECTOR, "form[data-node]")

    # From the start again, this time with the code the gateway read out.
    sign_in(browser, enrolling, "bea")
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=phone]").click()
    press(browser, "submit")
    browser.find_element(By.CSS_SELECTOR, "input[name=method][value=voice]").click()
    press(browser, "submit")
    before = len(VoiceGateway.calls)
    browser.find_element(By.ID, "phone_number").send_keys("+44 20 7946 0958")
    press(browser, "submit")
    _, spoken = call_to("+442079460958", before)
    browser.find_element(By.ID, "code").send_keys(spoken)
    press(browser, "submit")
    assert signed_in(browser)
    sign_out(browser, enrolling)

    # The next sign-in asks for the phone, a call first (the way it was set up), and a text on request.
    sign_in(browser, enrolling, "bea")
    options = [element.get_attribute("value") for element in browser.find_elements(By.CSS_SELECTOR, "input[name=factor]")]
    assert options == ["email", "voice", "sms"], options  # the verified address is a choice too
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=sms]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.sms"
    code = latest_code(enrolling, "+442079460958")
    browser.find_element(By.ID, "code").send_keys(code)
    press(browser, "submit")
    assert signed_in(browser)
    assert [message["template"] for message in outbox(enrolling, "+442079460958")][0] == "sign_in_code"
