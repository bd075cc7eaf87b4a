"""Passkeys on the hosted pages in headless Chromium with WebDriver's virtual authenticator (CTAP2, resident keys,
user verification): a user sets one up after the password, signs out, signs in with it as the second factor, then
without the password; an authenticator without user verification is refused where the policy requires it."""
import json
import sqlite3

import pytest

from conftest import APP_REDIRECT, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import (PASSWORD, b64url, Browser, Server, authorize_url, exchange, forms, gatehouse, redeem, start, submit,
                               verify_id_token)

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from browser_steps import click_and_wait, page_node, press, sign_in, sign_out, signed_in  # noqa: E402
from soft_passkey import PythonAuthenticator, passkey_options, unb64  # noqa: E402


@pytest.fixture(scope="module")
def passkeys():
    """Passkeys need a domain: the issuer is on localhost. Both clients require a second factor, a passkey or TOTP;
    `web` also lets a passkey sign in without the password. Passkeys must verify the user."""
    server = Server(host_name="localhost", config={
        "webauthn": {"user_verification": "required", "resident_key": "required"},
        "client_sign_on": {
            "mfa": {"second_factor": "required", "factors": ["passkey", "totp"]},
            "web": {"second_factor": "required", "factors": ["passkey", "totp"], "passkey_sign_in": True},
            "app": {"second_factor": "required", "factors": ["passkey", "totp"], "passkey_sign_in": True},
            "gatehouse-cli": {"second_factor": "required", "factors": ["passkey", "totp"]},
        },
    })
    try:
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        server.add_client("mfa", WEB_REDIRECT, secret=WEB_SECRET)
        server.add_client("app", APP_REDIRECT, public=True)
        server.add_client("gatehouse-cli", "dev.gatehouse.cli:/callback", public=True)
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

    # A browser without conditional mediation (simulated before any page script runs): the "Sign in with a passkey"
    # button asks for the passkey instead.
    sign_out(browser, passkeys)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);"})
    browser.get(authorize_url(passkeys))
    button = passkey_button(browser)
    assert button.text == "Sign in with a passkey" and page_node(browser) == "login.credentials"
    click_and_wait(browser, button)
    assert signed_in(browser), browser.current_url
    claims = verify_id_token(passkeys, redeem(passkeys, code_from(browser)).json(), "web", "n-456", "RS256")
    assert "pwd" not in claims["amr"] and claims["preferred_username"] == "ada"


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


# The flow API, with an authenticator written here (Python's cryptography and cbor2) and py_webauthn, an independent
# relying party, verifying the same credentials.

def test_py_webauthn_verifies_the_same_credentials_and_agrees_with_what_gatehouse_stored(passkeys):
    webauthn = pytest.importorskip("webauthn", reason="py_webauthn is not installed (pip install webauthn)")
    passkeys.add_user("dee", PASSWORD)
    authenticator = PythonAuthenticator(passkeys.issuer)
    flow_id = start(passkeys).json()["flow_id"]
    answer = submit(passkeys, flow_id, {"username": "dee", "password": PASSWORD}).json()
    assert answer["node"]["id"] == "mfa.enroll.choose"
    answer = submit(passkeys, flow_id, {"factor": "passkey"}).json()
    assert answer["node"]["id"] == "mfa.enroll.passkey"
    options = passkey_options(answer)

    # A truncated CBOR attestation object is a malformed request: 400 with an RFC 6749-style body; the flow goes on.
    broken = authenticator.create(options)
    broken["response"]["attestationObject"] = b64url(b"\xa3\x63fmt")
    refused = submit(passkeys, flow_id, {"credential": json.dumps(broken)})
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request" and "CBOR" in refused.json()["error_description"]

    credential = authenticator.create(options)
    verified = webauthn.verify_registration_response(
        credential=json.dumps(credential), expected_challenge=unb64(options["challenge"]), expected_rp_id="localhost",
        expected_origin=passkeys.issuer, require_user_verification=True)
    done = submit(passkeys, flow_id, {"credential": json.dumps(credential), "name": "Python key"}).json()
    assert done["status"] == "success", done
    with sqlite3.connect(passkeys.database) as database:
        row = database.execute(
            "SELECT credential_id, public_key, sign_count, aaguid, backed_up, user_verified FROM passkeys WHERE name = 'Python key'").fetchone()
    assert row[0] == b64url(verified.credential_id) and unb64(row[1]) == verified.credential_public_key
    assert row[2] == verified.sign_count and row[3] == verified.aaguid.replace("-", "") and bool(row[4]) == verified.credential_backed_up
    assert row[5] == 1 and verified.user_verified

    # Signing in: py_webauthn verifies the assertion with the key Gatehouse stored, and Gatehouse accepts it.
    flow_id = start(passkeys).json()["flow_id"]
    answer = submit(passkeys, flow_id, {"username": "dee", "password": PASSWORD}).json()
    assert answer["node"]["id"] == "mfa.passkey"
    options = passkey_options(answer)
    assertion = authenticator.get(options)
    checked = webauthn.verify_authentication_response(
        credential=json.dumps(assertion), expected_challenge=unb64(options["challenge"]), expected_rp_id="localhost",
        expected_origin=passkeys.issuer, credential_public_key=unb64(row[1]), credential_current_sign_count=row[2],
        require_user_verification=True)
    done = submit(passkeys, flow_id, {"credential": json.dumps(assertion)}).json()
    assert done["status"] == "success", done
    claims = verify_id_token(passkeys, exchange(passkeys, done["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["pwd", "hwk", "user", "mfa"]
    with sqlite3.connect(passkeys.database) as database:
        assert database.execute("SELECT sign_count FROM passkeys WHERE name = 'Python key'").fetchone()[0] == checked.new_sign_count == 1

    # Passwordless through the flow API: the sign-in node's passkey action.
    first = start(passkeys).json()
    assertion = authenticator.get(passkey_options(first))
    done = submit(passkeys, first["flow_id"], {"credential": json.dumps(assertion)}, action="passkey").json()
    assert done["status"] == "success", done
    claims = verify_id_token(passkeys, exchange(passkeys, done["authorization"]["code"]).json(), "app", "nn", "RS256")
    assert claims["amr"] == ["hwk", "user", "mfa"] and claims["preferred_username"] == "dee"

    # Operators: list, rename, remove; with no second factor left, the next sign-in sets one up again.
    listed = json.loads(passkeys.cli("users", "passkeys", "dee", "--json").stdout)
    assert [(p["name"], p["synced"], p["user_verified"]) for p in listed] == [("Python key", False, True)]
    passkey_id = listed[0]["id"]
    assert "Renamed" in passkeys.cli("users", "passkeys", "dee", "--rename", passkey_id, "--to", "Old key").stdout
    assert "Old key" in passkeys.cli("users", "passkeys", "dee").stdout
    missing = passkeys.cli("users", "passkeys", "nobody", check=False)
    assert missing.returncode != 0 and "There is no user named nobody" in missing.stderr
    assert "Removed" in passkeys.cli("users", "passkeys", "dee", "--remove", passkey_id).stdout
    flow_id = start(passkeys).json()["flow_id"]
    assert submit(passkeys, flow_id, {"username": "dee", "password": PASSWORD}).json()["node"]["id"] == "mfa.enroll.choose"


def test_the_terminal_says_it_cannot_use_a_passkey(passkeys, tmp_path):
    """A passkey-only account at the terminal client: the passkey step is named, no other way is offered, and the
    command ends with a readable error instead of hanging."""
    passkeys.add_user("eve", PASSWORD)
    authenticator = PythonAuthenticator(passkeys.issuer)
    flow_id = start(passkeys).json()["flow_id"]
    submit(passkeys, flow_id, {"username": "eve", "password": PASSWORD})
    options = passkey_options(submit(passkeys, flow_id, {"factor": "passkey"}).json())
    assert submit(passkeys, flow_id, {"credential": json.dumps(authenticator.create(options))}).json()["status"] == "success"
    result = gatehouse("login", "--issuer", passkeys.issuer, "--home", str(tmp_path), "--username", "eve", "--password-stdin",
                       stdin=PASSWORD, check=False)
    assert result.returncode != 0
    assert "needs a passkey" in result.stdout + result.stderr and "use the sign-in page in a browser" in result.stderr, result
