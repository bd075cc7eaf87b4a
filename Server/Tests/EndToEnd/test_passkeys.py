"""Passkeys on the hosted pages in headless Chromium with WebDriver's virtual authenticator (CTAP2, resident keys,
user verification): a user sets one up after the password, signs out, signs in with it as the second factor, then
without the password; an authenticator without user verification is refused where the policy requires it."""
import sqlite3

import pytest

from conftest import WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import PASSWORD, Browser, Server, authorize_url, forms, redeem, verify_id_token

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser_steps import click_and_wait, page_node, press, sign_in, sign_out, signed_in  # noqa: E402


@pytest.fixture(scope="module")
def passkeys():
    """Passkeys need a domain: the issuer is on localhost. Both clients require a second factor, a passkey or TOTP;
    `web` also lets a passkey sign in without the password. Passkeys must verify the user."""
    server = Server(host_name="localhost", config={
        "webauthn": {"user_verification": "required", "resident_key": "required"},
        "client_sign_on": {
            "mfa": {"second_factor": "required", "factors": ["passkey", "totp"]},
            "web": {"second_factor": "required", "factors": ["passkey", "totp"], "passkey_sign_in": True},
        },
    })
    try:
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        server.add_client("mfa", WEB_REDIRECT, secret=WEB_SECRET)
        yield server
    finally:
        server.stop()


def add_authenticator(browser, verifies_user=True):
    """A platform authenticator that keeps resident keys, with or without user verification (PIN, biometrics)."""
    browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol="ctap2", transport="internal", has_resident_key=True, has_user_verification=verifies_user,
        is_user_consenting=True, is_user_verified=verifies_user))


def stored_passkeys(server, username):
    with sqlite3.connect(server.database) as database:
        return database.execute(
            "SELECT name, user_verified, attestation FROM passkeys WHERE user_id = (SELECT id FROM users WHERE username = ?)",
            (username,)).fetchall()


def passkey_button(browser):
    button = browser.find_element(By.CSS_SELECTOR, "button[data-passkey]")
    WebDriverWait(browser, 10).until(lambda driver: button.is_displayed())
    return button


def code_from(browser):
    return browser.current_url.split("code=")[1].split("&")[0]


def test_a_passkey_set_up_after_the_password_signs_in_as_the_second_factor_then_without_the_password(passkeys, chromium):
    browser = chromium
    add_authenticator(browser)
    passkeys.add_user("ada", PASSWORD)
    sign_in(browser, passkeys, "ada", client_id="mfa")
    assert page_node(browser) == "mfa.enroll.choose"
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=passkey]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.passkey"
    name = browser.find_element(By.ID, "name")
    name.clear()
    name.send_keys("Chromium")
    # The page's script asks the browser for a passkey and submits it; the virtual authenticator answers.
    click_and_wait(browser, passkey_button(browser))
    assert signed_in(browser), browser.current_url
    credentials = browser.get_credentials()
    assert len(credentials) == 1 and credentials[0].is_resident_credential
    assert stored_passkeys(passkeys, "ada") == [("Chromium", 1, "none")]
    claims = verify_id_token(passkeys, redeem(passkeys, code_from(browser), auth=("mfa", WEB_SECRET)).json(), "mfa", "n-456", "RS256")
    assert claims["amr"][0] == "pwd" and "mfa" in claims["amr"] and ({"hwk", "swk"} & set(claims["amr"])), claims["amr"]

    # Signed out; the next sign-in asks for the passkey after the password.
    sign_out(browser, passkeys)
    sign_in(browser, passkeys, "ada", client_id="mfa")
    assert page_node(browser) == "mfa.passkey"
    click_and_wait(browser, passkey_button(browser))
    assert signed_in(browser), browser.current_url
    claims = verify_id_token(passkeys, redeem(passkeys, code_from(browser), auth=("mfa", WEB_SECRET)).json(), "mfa", "n-456", "RS256")
    assert "user" in claims["amr"] and claims["acr"] == "urn:gatehouse:acr:mfa", claims

    # Without the password, at a client that allows it: the sign-in page asks the browser for its saved passkeys
    # (conditional mediation, offered in the username field); the virtual authenticator answers with the resident
    # key, which names its user, and the page signs in without anything typed.
    sign_out(browser, passkeys)
    browser.get(authorize_url(passkeys))
    assert signed_in(browser), browser.current_url
    claims = verify_id_token(passkeys, redeem(passkeys, code_from(browser)).json(), "web", "n-456", "RS256")
    assert "pwd" not in claims["amr"] and "user" in claims["amr"] and "mfa" in claims["amr"], claims["amr"]
    assert claims["preferred_username"] == "ada" and claims["acr"] == "urn:gatehouse:acr:mfa"


def test_an_authenticator_without_user_verification_is_refused(passkeys, chromium):
    browser = chromium
    add_authenticator(browser, verifies_user=False)
    passkeys.add_user("bo", PASSWORD)
    sign_in(browser, passkeys, "bo")
    browser.find_element(By.CSS_SELECTOR, "input[name=factor][value=passkey]").click()
    press(browser, "submit")
    assert page_node(browser) == "mfa.enroll.passkey"
    passkey_button(browser).click()
    # The browser will not make a passkey without the verification the site requires; the page says so and stays.
    problem = WebDriverWait(browser, 20).until(lambda driver: driver.find_elements(By.CSS_SELECTOR, "div.passkey p.error"))
    assert problem[0].text and page_node(browser) == "mfa.enroll.passkey"
    assert stored_passkeys(passkeys, "bo") == []


def test_without_javascript_the_passkey_part_and_button_stay_hidden(passkeys):
    """The page as a browser without scripts sees it: the passkey part and its button are hidden until the page's
    own script (allowed by the CSP as a file of this origin, never inline) shows them; another way stays offered."""
    passkeys.add_user("cy", PASSWORD)
    browser = Browser(passkeys)
    page = browser.sign_in(authorize_url(passkeys), "cy", PASSWORD)
    form = forms(page.text)[0]
    page = browser.post(passkeys.issuer + form["action"], dict(form["inputs"]) | {"factor": "passkey", "action": "submit"})
    assert 'data-node="mfa.enroll.passkey"' in page.text
    assert '<div class="passkey" hidden data-ceremony="create"' in page.text
    assert 'value="submit" hidden data-passkey>' in page.text and 'value="choose" class="secondary" formnovalidate>' in page.text
    assert '<script src="/assets/passkey.js" defer></script>' in page.text
    assert "script-src 'self'" in page.headers["Content-Security-Policy"] and "unsafe-inline" not in page.headers["Content-Security-Policy"]
