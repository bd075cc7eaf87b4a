"""Every screen of the account page in headless Chromium, as a person uses it, with a screenshot of each kept as test
output (GATEHOUSE_SCREENSHOTS, else .build/screenshots) and axe-core on each: sign in; set up an authenticator app
(pyotp computes its codes) and remove it; add a passkey (WebDriver's virtual authenticator) and remove it; sign out
another browser, which is then signed out; unlink another provider; download the data; change the password after
the allowed age (signing in again first); delete the account, whose tokens then stop working and which cannot sign in."""
import json
import os
import re
import sqlite3
import time

import pytest
import requests

from gatehouse_harness import PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, outbox, redeem, redirect_parameters

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser_steps import Screens, click_and_wait, page_node, press  # noqa: E402

# Long enough for a removal right after a sign-in, with screenshots and axe between them on a busy machine.
REAUTHENTICATE_AFTER = 8
NEW_PASSWORD = "a new passphrase for the walk"


@pytest.fixture(scope="module")
def walk_server():
    """Passkeys need a domain: the issuer is on localhost. Authenticator apps and passkeys may be set up."""
    server = Server(host_name="localhost", config={
        "account": {"reauthenticate_after": REAUTHENTICATE_AFTER},
        "sign_on": {"second_factor": "if_enrolled", "factors": ["totp", "passkey"]},
        "webauthn": {"user_verification": "required", "resident_key": "required"},
    })
    try:
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET, extra=["--name", "Web App"])
        yield server
    finally:
        server.stop()


def change(browser, name, **hidden):
    """Presses the button of the account page's form that makes `name` (and carries `hidden`'s values)."""
    conditions = "".join(f" and input[@name='{key}' and @value='{value}']" for key, value in hidden.items())
    form = browser.find_element(By.XPATH, f"//form[input[@name='change' and @value='{name}']{conditions}]")
    click_and_wait(browser, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))


def notice(browser):
    return browser.find_element(By.CSS_SELECTOR, "p.info").text


def sign_in_form(browser, username, password):
    """On the hosted sign-in page (the username may be filled in already): the password, then submit."""
    field = browser.find_element(By.ID, "username")
    if not field.get_attribute("value"):
        field.send_keys(username)
    browser.find_element(By.ID, "password").send_keys(password)
    press(browser, "submit")


def on_account_page(browser, server):
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url.startswith(server.issuer + "/account"))
    return browser.find_element(By.TAG_NAME, "h1").text == "Your account"


def test_every_account_screen_in_chromium(walk_server, chromium, screenshots):
    browser = chromium
    screens = Screens(browser, screenshots, prefix="account")
    browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol="ctap2", transport="internal", has_resident_key=True, has_user_verification=True, is_user_consenting=True,
        is_user_verified=True))
    username = f"walker-{time.monotonic_ns()}"
    walk_server.add_user(username, PASSWORD, name="Wanda Walker")
    user_id = next(user["id"] for user in json.loads(walk_server.cli("users", "list", "--json").stdout) if user["username"] == username)
    # An identity at another provider, as a sign-in through it would have linked (the provider itself is tested in
    # test_identity_providers.py).
    with sqlite3.connect(walk_server.database) as database:
        database.execute("INSERT INTO federated_identities (provider, subject, user_id, email, created_at, last_used_at) "
                         "VALUES ('corp', ?, ?, NULL, strftime('%s','now'), NULL)", (f"corp-{user_id}", user_id))

    # Signed out, the page sends the browser to sign in, which comes back to it.
    browser.get(walk_server.issuer + "/account")
    screens.check("sign-in")
    sign_in_form(browser, username, PASSWORD)
    assert on_account_page(browser, walk_server)
    screens.check("overview")
    # An authenticator app: the hosted journey signs in again, sets it up with a code from pyotp, shows recovery codes.
    import pyotp

    change(browser, "two_step")
    assert page_node(browser) == "login.credentials"
    sign_in_form(browser, username, PASSWORD)
    assert page_node(browser) == "mfa.enroll.choose"
    screens.check("two-step-choice")
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=totp]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.totp"
    screens.check("authenticator-app")
    key = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", browser.page_source).group(1).replace(" ", "")
    browser.find_element(By.ID, "code").send_keys(pyotp.TOTP(key).now())
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.recovery_codes"
    screens.check("recovery-codes")
    press(browser, "submit")
    assert on_account_page(browser, walk_server) and "two-step verification was changed" in notice(browser)
    assert browser.find_elements(By.CSS_SELECTOR, "form[data-factor=totp]")
    change(browser, "remove_factor", factor="totp")
    assert "was removed" in notice(browser) and not browser.find_elements(By.CSS_SELECTOR, "form[data-factor=totp]")
    screens.check("authenticator-app-removed")

    # A passkey ("Add a passkey": the same journey), made by the virtual authenticator; then removed on the page.
    click_and_wait(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Add a passkey']"))
    sign_in_form(browser, username, PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=passkey]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.passkey"
    screens.check("passkey")
    button = browser.find_element(By.CSS_SELECTOR, "button[data-passkey]")
    WebDriverWait(browser, 10).until(lambda driver: button.is_displayed())
    click_and_wait(browser, button)
    assert on_account_page(browser, walk_server), browser.current_url
    passkey = browser.find_element(By.CSS_SELECTOR, "div[data-passkey]").get_attribute("data-passkey")
    assert len(browser.get_credentials()) == 1
    screens.check("passkey-added")
    change(browser, "remove_passkey", passkey=passkey)
    assert notice(browser) == "The passkey was removed." and not browser.find_elements(By.CSS_SELECTOR, "div[data-passkey]")

    # Another browser, signed out from here; it is then sent to sign in. (Changing two-step verification above ended
    # every other session, so it signs in now.)
    other = Browser(walk_server)
    assert other.sign_in(walk_server.issuer + "/account", username, PASSWORD).url == walk_server.issuer + "/account"
    browser.refresh()
    handles = [row.get_attribute("data-session") for row in browser.find_elements(By.CSS_SELECTOR, "tr[data-session]")]
    assert len(handles) == 2 and "This browser" in browser.find_element(By.CSS_SELECTOR, "tbody").text
    theirs = next(handle for handle in handles if browser.find_elements(By.XPATH, f"//input[@name='session' and @value='{handle}']"))
    change(browser, "end_session", session=theirs)
    assert notice(browser) == "That browser was signed out."
    screens.check("browser-signed-out")
    assert "/login?flow=" in other.get(walk_server.issuer + "/account").url

    # The other provider, unlinked (the password remains a way in). Removing a way in needs a recent sign-in: after
    # the allowed age the page signs the person in again first, and they press it once more.
    time.sleep(REAUTHENTICATE_AFTER + 1)
    change(browser, "unlink_identity", provider="corp")
    assert page_node(browser) == "login.credentials"
    sign_in_form(browser, username, PASSWORD)
    assert on_account_page(browser, walk_server)
    change(browser, "unlink_identity", provider="corp")
    assert notice(browser) == "The other provider's sign-in was unlinked."
    screens.check("provider-unlinked")
    told = [m["template"] for m in outbox(walk_server, f"{username}@example.com")]
    assert told.count("sign_in_method_removed") == 2 and "factor_removed" in told, told  # the passkey, the provider; the app

    # The data, as the download link gives it to this browser's session.
    data = browser.execute_async_script(
        "const done = arguments[0]; fetch('/account/data').then(r => r.json()).then(done, e => done(String(e)));")
    assert data["user"]["username"] == username and data["identities"] == [] and "password_hash" not in json.dumps(data)
    assert {"factor.enrolled", "factor.removed", "identity.unlinked"} <= {event["type"] for event in data["events"]}

    # The password, after the allowed age: the page signs the person in again (the name filled in), then the form.
    time.sleep(REAUTHENTICATE_AFTER + 1)
    browser.find_element(By.ID, "current_password").send_keys(PASSWORD)
    browser.find_element(By.ID, "new_password").send_keys(NEW_PASSWORD)
    change(browser, "password")
    assert page_node(browser) == "login.credentials" and browser.find_element(By.ID, "username").get_attribute("value") == username
    screens.check("sign-in-again")
    sign_in_form(browser, username, PASSWORD)
    assert on_account_page(browser, walk_server)
    browser.find_element(By.ID, "current_password").send_keys(PASSWORD)
    browser.find_element(By.ID, "new_password").send_keys(NEW_PASSWORD)
    change(browser, "password")
    assert "Your password was changed" in notice(browser)
    screens.check("password-changed")

    # Deleted: typing the username; an application's tokens stop working and the account cannot sign in.
    code = redirect_parameters(Browser(walk_server).sign_in(authorize_url(walk_server), username, NEW_PASSWORD))["code"]
    tokens = redeem(walk_server, code).json()
    userinfo = requests.get(walk_server.issuer + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    assert userinfo.status_code == 200
    browser.find_element(By.ID, "confirm_username").send_keys(username)
    change(browser, "delete")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Account deleted"
    screens.check("deleted")
    userinfo = requests.get(walk_server.issuer + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    assert userinfo.status_code == 401
    assert Browser(walk_server).sign_in(authorize_url(walk_server), username, NEW_PASSWORD).status_code == 401
    print(f"account walk: {len(screens.taken)} screens, each with a screenshot and no serious axe finding: {', '.join(screens.taken)}")
