"""The admin console in headless Chromium, as an operator uses it, with a screenshot of each screen kept as test output
(GATEHOUSE_SCREENSHOTS, else the test's folder) and axe-core on each: an admin signs in with a second factor (set up on
the way, pyotp computes the codes), finds a user, locks and unlocks them (the trail names the admin), signs one of
their browsers out (that browser is signed out), creates a client and sees its secret once (it works at the token
endpoint), gives it a new one, and rotates the signing keys; a viewer sees but every change is refused; a forged cross-site form
is refused; someone without a role, or without a second factor, does not get in; `gatehouse admins` gives and takes
roles; the console can be turned off."""
import json
import os
import re
from urllib.parse import urljoin

import pytest
import requests

from gatehouse_harness import PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, forms, redirect_parameters

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402

from browser_steps import Screens, click_and_wait, page_node, press  # noqa: E402


@pytest.fixture(scope="module")
def console():
    server = Server(config={"sign_on": {"second_factor": "if_enrolled", "factors": ["totp"]}})
    try:
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        for username in ("root", "watcher", "alice", "nobody"):
            server.add_user(username, PASSWORD, email=f"{username}@example.com", name=f"{username.title()} Example")
        assert "root is now admin" in server.cli("admins", "add", "root").stdout
        assert "watcher is now viewer" in server.cli("admins", "add", "watcher", "--role", "viewer").stdout
        yield server
    finally:
        server.stop()


def sign_in_with_totp(browser, username, keys):
    """On the hosted sign-in the console sent the browser to: the password, then the authenticator app (set up first
    when the person has none; its key is kept in `keys`)."""
    import pyotp

    assert page_node(browser) == "login.credentials"
    browser.find_element(By.ID, "username").send_keys(username)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    press(browser, "submit")
    if page_node(browser) == "mfa.enroll.totp":
        keys[username] = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", browser.page_source).group(1).replace(" ", "")
        browser.find_element(By.ID, "code").send_keys(pyotp.TOTP(keys[username]).now())
        press(browser, "submit")
        assert page_node(browser) == "mfa.enroll.recovery_codes"
        press(browser, "submit")
    else:
        assert page_node(browser) == "mfa.totp", page_node(browser)
        browser.find_element(By.ID, "code").send_keys(pyotp.TOTP(keys[username]).now())
        press(browser, "submit")


def change(browser, name, **hidden):
    """Presses the button of the console form that makes `name` (and carries `hidden`'s values)."""
    conditions = "".join(f" and input[@name='{key}' and @value='{value}']" for key, value in hidden.items())
    form = browser.find_element(By.XPATH, f"//form[input[@name='change' and @value='{name}']{conditions}]")
    click_and_wait(browser, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))


def token_for(server, client_id, secret):
    return requests.post(server.issuer + "/token", data={"grant_type": "client_credentials"}, auth=(client_id, secret), timeout=10)


def user_id(server, username):
    return next(user["id"] for user in json.loads(server.cli("users", "list", "--json").stdout) if user["username"] == username)


def test_an_admin_signs_in_with_a_second_factor_finds_a_user_locks_unlocks_and_signs_a_browser_out(console, chromium, tmp_path):
    screens = Screens(chromium, os.environ.get("GATEHOUSE_SCREENSHOTS", str(tmp_path)), prefix="console")
    chromium.delete_all_cookies()
    # alice is signed in elsewhere: a browser of her own.
    hers = Browser(console)
    assert "code" in redirect_parameters(hers.sign_in(authorize_url(console), "alice", PASSWORD))

    chromium.get(console.issuer + "/admin")
    keys = {}
    sign_in_with_totp(chromium, "root", keys)
    assert chromium.current_url == console.issuer + "/admin", chromium.current_url
    assert "root · admin" in chromium.find_element(By.CSS_SELECTOR, "nav.console").text
    screens.check("overview")

    chromium.get(console.issuer + "/admin/users?q=ali")
    rows = chromium.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert [row.find_element(By.TAG_NAME, "a").text for row in rows] == ["alice"]
    screens.check("users")
    click_and_wait(chromium, rows[0].find_element(By.TAG_NAME, "a"))
    assert chromium.find_element(By.TAG_NAME, "h1").text == "alice"
    screens.check("user")

    change(chromium, "lock")
    assert "was locked" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    assert chromium.find_element(By.CSS_SELECTOR, "dd[data-state]").get_attribute("data-state") == "locked"
    change(chromium, "unlock")
    assert chromium.find_element(By.CSS_SELECTOR, "dd[data-state]").get_attribute("data-state") == "active"
    screens.check("user-unlocked")
    alice = user_id(console, "alice")
    root = user_id(console, "root")
    trail = json.loads(console.cli("events", "--user", "alice", "--json").stdout)
    mine = [(event["type"], event["actor"]) for event in trail if event["actor"] == f"user:{root}"]
    assert mine == [("account.locked", f"user:{root}"), ("account.unlocked", f"user:{root}")], trail

    # Locking ended her sessions; she signs in again, and the console signs that browser out.
    hers = Browser(console)
    assert "code" in redirect_parameters(hers.sign_in(authorize_url(console), "alice", PASSWORD))
    chromium.refresh()
    sessions = chromium.find_elements(By.CSS_SELECTOR, "li[data-session]")
    assert len(sessions) == 1
    change(chromium, "end_session", session=sessions[0].get_attribute("data-session"))
    assert "signed out" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    again = hers.get(authorize_url(console))
    assert "/login?flow=" in again.url, "her browser is signed out: the next authorization asks for the password"
    assert any(event["type"] == "session.ended" for event in json.loads(console.cli("events", "--user", "alice", "--json").stdout))

    chromium.get(console.issuer + "/admin/events?type=account.locked")
    assert "account.locked" in chromium.find_element(By.TAG_NAME, "tbody").text
    screens.check("events")

    # A client, made with the tool's validation; its secret shown once, working at the token endpoint.
    chromium.get(console.issuer + "/admin/clients")
    screens.check("clients")
    chromium.find_element(By.ID, "client_id").send_keys("bad id")
    chromium.find_element(By.ID, "redirect_uris").send_keys("https://shop.example/cb")
    chromium.execute_script("document.getElementById('client_id').removeAttribute('pattern')")
    click_and_wait(chromium, chromium.find_element(By.ID, "create_client"))
    assert chromium.find_elements(By.CSS_SELECTOR, "p.error[role=alert]"), "an id the tool refuses is refused here too"
    chromium.find_element(By.ID, "client_id").send_keys("shop")
    chromium.find_element(By.ID, "redirect_uris").send_keys("https://shop.example/cb")
    click_and_wait(chromium, chromium.find_element(By.ID, "create_client"))
    secret = chromium.find_element(By.ID, "client_secret").text
    screens.check("client-secret")
    assert token_for(console, "shop", secret).status_code == 200
    chromium.get(console.issuer + "/admin/clients")
    assert secret not in chromium.page_source and chromium.find_elements(By.CSS_SELECTOR, "tr[data-client=shop]")
    row = chromium.find_element(By.CSS_SELECTOR, "tr[data-client=shop]")
    click_and_wait(chromium, row.find_element(By.XPATH, ".//form[input[@name='change' and @value='rotate_secret']]//button"))
    rotated = chromium.find_element(By.ID, "client_secret").text
    assert rotated != secret and token_for(console, "shop", secret).status_code == 401 and token_for(console, "shop", rotated).status_code == 200

    # The signing keys, rotated: the new ones are published at once.
    chromium.get(console.issuer + "/admin/keys")
    before = {row.get_attribute("data-kid") for row in chromium.find_elements(By.CSS_SELECTOR, "tr[data-kid]")}
    screens.check("keys")
    click_and_wait(chromium, chromium.find_element(By.ID, "rotate_keys"))
    after = {row.get_attribute("data-kid") for row in chromium.find_elements(By.CSS_SELECTOR, "tr[data-kid]")}
    made = after - before
    assert made and "New keys sign from now" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    published = {key["kid"] for key in requests.get(console.issuer + "/jwks", timeout=10).json()["keys"]}
    assert made <= published
    types = [(event["type"], event["actor"]) for event in json.loads(console.cli("events", "--json").stdout)
             if event["type"] in ("client.created", "client.secret_rotated", "keys.rotated") and event["actor"].startswith("user:")]
    assert types == [("client.created", f"user:{root}"), ("client.secret_rotated", f"user:{root}"), ("keys.rotated", f"user:{root}")], types


def test_a_viewer_sees_but_cannot_change_and_a_forged_form_is_refused(console, chromium, tmp_path):
    chromium.delete_all_cookies()
    chromium.get(console.issuer + "/admin")
    sign_in_with_totp(chromium, "watcher", {})
    alice = user_id(console, "alice")
    chromium.get(console.issuer + f"/admin/users/{alice}")
    assert chromium.find_element(By.TAG_NAME, "h1").text == "alice"
    assert not chromium.find_elements(By.ID, "lock") and not chromium.find_elements(By.ID, "unlock")
    Screens(chromium, os.environ.get("GATEHOUSE_SCREENSHOTS", str(tmp_path)), prefix="console-viewer").check("user")

    # The viewer's own browser posts a well-formed change (its cookie and token): refused for the role.
    cookies = {cookie["name"]: cookie["value"] for cookie in chromium.get_cookies()}
    session = requests.Session()
    for name, value in cookies.items():
        session.cookies.set(name, value)
    token = cookies["gatehouse_console"]
    refused = session.post(console.issuer + f"/admin/users/{alice}", data={"csrf_token": token, "change": "lock"}, allow_redirects=False, timeout=10)
    assert refused.status_code == 403 and "viewer" in refused.text
    # A forged cross-site form: the browser sends the session cookie, but the page's token is not known to the forger.
    forged = session.post(console.issuer + f"/admin/users/{alice}", data={"csrf_token": "guessed", "change": "lock"}, allow_redirects=False,
                          timeout=10)
    assert forged.status_code == 403 and "expired" in forged.text
    assert not next(user for user in json.loads(console.cli("users", "list", "--json").stdout) if user["username"] == "alice")["locked"]


def test_without_a_role_or_a_second_factor_nobody_gets_in(console):
    import pyotp

    browser = Browser(console)
    # A person without a role signs in with the password and sets a second factor up, then is refused.
    page = browser.get(console.issuer + "/admin")
    assert "/login?flow=" in page.url
    page = browser.submit_login(page, "nobody", PASSWORD)
    assert 'data-node="mfa.enroll.totp"' in page.text
    key = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", page.text).group(1).replace(" ", "")
    form = forms(page.text)[0]
    page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], code=pyotp.TOTP(key).now(), action="submit"))
    assert 'data-node="mfa.enroll.recovery_codes"' in page.text
    form = forms(page.text)[0]
    page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="submit"))
    assert page.url == console.issuer + "/admin" and page.status_code == 403 and "holds no role" in page.text
    # A browser that signed in with the password alone (the web client asks no more of alice) is sent to sign in again.
    browser = Browser(console)
    assert "code" in redirect_parameters(browser.sign_in(authorize_url(console), "alice", PASSWORD))
    again = browser.session.get(console.issuer + "/admin", allow_redirects=False, timeout=10)
    assert again.status_code == 302 and again.headers["Location"].startswith("/login?flow=")


def test_admins_are_given_and_taken_with_the_cli(console):
    listed = json.loads(console.cli("admins", "list", "--json").stdout)
    assert {(holder["username"], holder["role"]) for holder in listed} >= {("root", "admin"), ("watcher", "viewer")}
    assert all(holder["granted_by"].startswith("operator:") for holder in listed)
    console.cli("admins", "add", "alice", "--role", "operator")
    assert "alice" in console.cli("admins", "list").stdout
    assert "no longer holds" in console.cli("admins", "remove", "alice").stdout
    missing = console.cli("admins", "remove", "alice", check=False)
    assert missing.returncode != 0 and "holds no role" in missing.stderr
    unknown = console.cli("admins", "add", "ghost", check=False)
    assert unknown.returncode != 0 and "There is no user named ghost" in unknown.stderr
    wrong = console.cli("admins", "add", "alice", "--role", "owner", check=False)
    assert wrong.returncode != 0 and "viewer" in wrong.stderr
    types = [event["type"] for event in json.loads(console.cli("events", "--user", "alice", "--json").stdout)]
    assert "admin_role.granted" in types and "admin_role.revoked" in types


def test_the_console_can_be_turned_off():
    server = Server(config={"admin_console": {"enabled": False}})
    try:
        assert requests.get(server.issuer + "/admin", allow_redirects=False, timeout=10).status_code == 404
    finally:
        server.stop()
