"""The admin console in headless Chromium, as an operator uses it, with a screenshot of each screen kept as test output
(GATEHOUSE_SCREENSHOTS, else .build/screenshots) and axe-core on each: an admin signs in with a second factor (set up on
the way, pyotp computes the codes), finds a user, locks and unlocks them (the trail names the admin), signs one of
their browsers out (that browser is signed out), creates a client and sees its secret once (it works at the token
endpoint), gives it a new one, and rotates the signing keys; a viewer sees but every change is refused; a forged cross-site form
is refused; someone without a role, or without a second factor, does not get in; `gatehouse admins` gives and takes
roles; the console can be turned off. An operator makes and edits accounts (the profile, second factors reset, a
person's tokens, consents, passkeys and apps listed), edits a client, registers and edits a resource, withdraws a retired
key (the JWKS drops it), follows the trail by actor and request, and reads the outbox; an admin gives and takes roles,
which an operator cannot; every page passes axe-core in dark mode too."""
import hashlib
import hmac
import json
import os
import re
from urllib.parse import urljoin

import pytest
import requests

from gatehouse_harness import (PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, b64url, form_token, forms, free_port,
                               gatehouse, get_code, redeem, redirect_parameters)

selenium = pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
from selenium.webdriver.common.by import By  # noqa: E402

from browser_steps import Screens, click_and_wait, dark, page_node, press  # noqa: E402


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


KEYS = {}
"""The authenticator apps' keys, by username, as the people set them up during this module."""
LAST_CODES = {}
"""The code each person last signed in with: a code is good once, so the next sign-in waits for the next one."""


def next_code(username, key):
    import time

    import pyotp

    for _ in range(35):
        code = pyotp.TOTP(key).now()
        if code != LAST_CODES.get(username):
            LAST_CODES[username] = code
            return code
        time.sleep(1)
    raise AssertionError("no new TOTP code in 35 seconds")


def sign_in_with_totp(browser, username, keys=KEYS):
    """On the hosted sign-in the console sent the browser to: the password, then the authenticator app (set up first
    when the person has none; its key is kept in `keys`)."""

    assert page_node(browser) == "login.credentials"
    browser.find_element(By.ID, "username").send_keys(username)
    browser.find_element(By.ID, "password").send_keys(PASSWORD)
    press(browser, "submit")
    if page_node(browser) == "mfa.enroll.totp":
        keys[username] = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", browser.page_source).group(1).replace(" ", "")
        browser.find_element(By.ID, "code").send_keys(next_code(username, keys[username]))
        press(browser, "submit")
        assert page_node(browser) == "mfa.enroll.recovery_codes"
        press(browser, "submit")
    else:
        if page_node(browser) == "mfa.choose":  # the app or a recovery code
            browser.find_element(By.CSS_SELECTOR, "input[type=radio][value=totp]").click()
            press(browser, "submit")
        assert page_node(browser) == "mfa.totp", page_node(browser)
        browser.find_element(By.ID, "code").send_keys(next_code(username, keys[username]))
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


def test_an_admin_signs_in_with_a_second_factor_finds_a_user_locks_unlocks_and_signs_a_browser_out(console, chromium, screenshots):
    screens = Screens(chromium, screenshots, prefix="console")
    chromium.delete_all_cookies()
    # alice is signed in elsewhere: a browser of her own.
    hers = Browser(console)
    assert "code" in redirect_parameters(hers.sign_in(authorize_url(console), "alice", PASSWORD))

    chromium.get(console.issuer + "/admin")
    sign_in_with_totp(chromium, "root")
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


def test_a_viewer_sees_but_cannot_change_and_a_forged_form_is_refused(console, chromium, screenshots):
    chromium.delete_all_cookies()
    chromium.get(console.issuer + "/admin")
    sign_in_with_totp(chromium, "watcher")
    alice = user_id(console, "alice")
    chromium.get(console.issuer + f"/admin/users/{alice}")
    assert chromium.find_element(By.TAG_NAME, "h1").text == "alice"
    assert not chromium.find_elements(By.ID, "lock") and not chromium.find_elements(By.ID, "unlock")
    Screens(chromium, screenshots, prefix="console-viewer").check("user")

    # The viewer's own browser posts a well-formed change (its cookie and token): refused for the role.
    cookies = {cookie["name"]: cookie["value"] for cookie in chromium.get_cookies()}
    session = requests.Session()
    for name, value in cookies.items():
        session.cookies.set(name, value)
    # A viewer's pages have no forms: the token is the one the console would write for this session.
    token = b64url(hmac.new(cookies["gatehouse_session"].encode(), b"gatehouse admin console", hashlib.sha256).digest())
    refused = session.post(console.issuer + f"/admin/users/{alice}", data={"csrf_token": token, "change": "lock"}, allow_redirects=False, timeout=10)
    assert refused.status_code == 403 and "viewer" in refused.text
    # A forged cross-site form: the browser sends the session cookie, but the page's token is not known to the forger.
    forged = session.post(console.issuer + f"/admin/users/{alice}", data={"csrf_token": "guessed", "change": "lock"}, allow_redirects=False,
                          timeout=10)
    assert forged.status_code == 403 and "expired" in forged.text
    # A form cookie planted from a sibling host (http cookies are not `__Host-`) with the planter's token: refused too.
    session.cookies.set("gatehouse_console", "p" * 43)
    planted = session.post(console.issuer + f"/admin/users/{alice}", data={"csrf_token": "p" * 43, "change": "lock"}, allow_redirects=False,
                           timeout=10)
    assert planted.status_code == 403 and "expired" in planted.text
    # Every form of the console refuses the viewer, whatever it would change.
    for path, form in [("/admin/users", {"username": "eve"}), ("/admin/clients", {"id": "eve"}), ("/admin/resources", {"id": "urn:eve"}),
                       ("/admin/keys", {"change": "rotate"}), ("/admin/roles", {"change": "grant", "username": "watcher", "role": "admin"}),
                       ("/admin/clients/web", {"change": "delete"}), ("/admin/resources/urn%3Aeve", {"change": "delete"}),
                       (f"/admin/users/{alice}", {"change": "reset_factors"}), (f"/admin/users/{alice}", {"change": "sign_out_everywhere"})]:
        answer = session.post(console.issuer + path, data=dict(form, csrf_token=token), allow_redirects=False, timeout=10)
        assert answer.status_code == 403, (path, form, answer.status_code)
    assert any(client["id"] == "web" for client in json.loads(console.cli("clients", "list", "--json").stdout))
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


def enroll_totp_through_the_console(server, username):
    """`username` signs in to the console with the password and sets an authenticator app up on the way (then is refused
    for want of a role, or let in); returns the app's key."""
    browser = Browser(server)
    page = browser.submit_login(browser.get(server.issuer + "/admin"), username, PASSWORD)
    assert 'data-node="mfa.enroll.totp"' in page.text, page.text[:500]
    key = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", page.text).group(1).replace(" ", "")
    form = forms(page.text)[0]
    page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], code=next_code(f"{server.issuer} {username}", key), action="submit"))
    form = forms(page.text)[0]
    browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="submit"))
    return key


def as_root(browser, server):
    """The browser at the console's overview, signed in as root (again, when another person used it)."""
    browser.get(server.issuer + "/admin")
    if "root · admin" not in browser.page_source:
        browser.delete_all_cookies()
        browser.get(server.issuer + "/admin")
        sign_in_with_totp(browser, "root")
    assert "root · admin" in browser.find_element(By.CSS_SELECTOR, "nav.console").text


def test_an_operator_manages_accounts_clients_resources_and_keys(console, chromium, screenshots):
    screens = Screens(chromium, screenshots, prefix="console-operator")
    as_root(chromium, console)
    root = user_id(console, "root")

    # A new account: a password the policy refuses is refused with the form kept; then made.
    chromium.get(console.issuer + "/admin/users")
    chromium.find_element(By.ID, "new_username").send_keys("carol")
    chromium.find_element(By.ID, "new_email").send_keys("carol@example.com")
    chromium.find_element(By.ID, "new_name").send_keys("Carol Danvers")
    chromium.find_element(By.ID, "new_password").send_keys("short")
    click_and_wait(chromium, chromium.find_element(By.ID, "create_user"))
    assert chromium.find_elements(By.CSS_SELECTOR, "p.error[role=alert]")
    assert chromium.find_element(By.ID, "new_username").get_attribute("value") == "carol"
    chromium.find_element(By.ID, "new_password").send_keys(PASSWORD)
    click_and_wait(chromium, chromium.find_element(By.ID, "create_user"))
    assert chromium.find_element(By.TAG_NAME, "h1").text == "carol" and "was made" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    carol = chromium.current_url.split("/admin/users/")[1].split("?")[0]

    # Her profile: a name and a phone number; found by a word of the name and by the number.
    chromium.find_element(By.ID, "profile_given_name").send_keys("Carol")
    chromium.find_element(By.ID, "profile_phone").send_keys("+49 151 2345678")
    click_and_wait(chromium, chromium.find_element(By.ID, "save_profile"))
    assert "profile was saved" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    assert "+491512345678 (not confirmed)" in chromium.find_element(By.TAG_NAME, "dl").text
    screens.check("user-edited")
    for query in ("danv", "+49 1512"):
        chromium.get(console.issuer + "/admin/users?q=" + requests.utils.quote(query))
        assert [row.text for row in chromium.find_elements(By.CSS_SELECTOR, "tbody tr a")] == ["carol"], query
    updated = [event for event in json.loads(console.cli("events", "--user", "carol", "--json").stdout) if event["type"] == "account.updated"]
    assert updated[-1]["actor"] == f"user:{root}", updated
    assert updated[-1]["details"]["given_name.after"] == "Carol" and updated[-1]["details"]["phone_number.after"] == "+491512345678"
    # An edit made from a page that is out of date is refused, not written over the newer one.
    chromium.get(console.issuer + f"/admin/users/{carol}")
    cookies = {cookie["name"]: cookie["value"] for cookie in chromium.get_cookies()}
    stale = requests.post(console.issuer + f"/admin/users/{carol}", cookies=cookies, allow_redirects=False, timeout=10, data={
        "csrf_token": chromium.find_element(By.NAME, "csrf_token").get_attribute("value"), "change": "profile", "etag": '"0000"', "email": "carol@example.com", "name": "Overwritten"})
    assert stale.status_code == 400 and "changed since this page was shown" in stale.text

    # Her second factors, reset: she set an authenticator app up, and is asked to set one up again.
    enroll_totp_through_the_console(console, "carol")
    chromium.refresh()
    change(chromium, "reset_factors")
    assert "second factors were removed" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    enroll_totp_through_the_console(console, "carol")
    removed = [event for event in json.loads(console.cli("events", "--user", "carol", "--json").stdout) if event["type"] == "factor.removed"]
    assert [(event["actor"], event["details"]["factor"]) for event in removed] == [(f"user:{root}", "all")]

    # alice's tokens at the web client: listed, and revoked here; the refresh token stops working.
    tokens = redeem(console, get_code(console)).json()
    alice = user_id(console, "alice")
    chromium.get(console.issuer + f"/admin/users/{alice}")
    grants = chromium.find_elements(By.CSS_SELECTOR, "li[data-grant]")
    assert grants and "web" in grants[0].text
    screens.check("user-lists")
    change(chromium, "revoke_grant", grant=grants[0].get_attribute("data-grant"))
    assert requests.post(console.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                         auth=("web", WEB_SECRET), timeout=10).status_code == 400
    change(chromium, "sign_out_everywhere")
    assert "Every browser was signed out" in chromium.find_element(By.CSS_SELECTOR, "p.info").text

    # A client edited: a redirect URI the rules refuse is refused, a good change saved and audited.
    console.add_client("ledger", "https://ledger.example/cb", secret="ledger-secret-0123456789abcdef-0123456789")
    chromium.get(console.issuer + "/admin/clients/ledger")
    screens.check("client")
    uris = chromium.find_element(By.ID, "redirect_uris")
    uris.clear()
    uris.send_keys("not a url")
    click_and_wait(chromium, chromium.find_element(By.ID, "save_client"))
    assert chromium.find_elements(By.CSS_SELECTOR, "p.error[role=alert]")
    chromium.find_element(By.ID, "client_name").clear()
    chromium.find_element(By.ID, "client_name").send_keys("Ledger")
    uris = chromium.find_element(By.ID, "redirect_uris")
    uris.clear()
    uris.send_keys("https://ledger.example/cb\nhttps://ledger.example/other")
    click_and_wait(chromium, chromium.find_element(By.ID, "save_client"))
    assert "client was saved" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    ledger = next(client for client in json.loads(console.cli("clients", "list", "--json").stdout) if client["id"] == "ledger")
    assert ledger["name"] == "Ledger" and ledger["redirect_uris"] == ["https://ledger.example/cb", "https://ledger.example/other"], ledger
    updated = [event for event in json.loads(console.cli("events", "--json").stdout) if event["type"] == "client.updated"]
    assert updated[-1]["actor"] == f"user:{root}" and updated[-1]["details"]["name.after"] == "Ledger"

    # A resource: registered, edited, removed.
    chromium.get(console.issuer + "/admin/resources")
    chromium.find_element(By.ID, "resource_id").send_keys("https://api.example.com/notes")
    chromium.find_element(By.ID, "resource_name").send_keys("Notes")
    chromium.find_element(By.ID, "resource_scopes").send_keys("notes.read: Read your notes")
    click_and_wait(chromium, chromium.find_element(By.ID, "create_resource"))
    assert chromium.find_element(By.TAG_NAME, "h1").text == "Notes"
    screens.check("resource")
    scopes = chromium.find_element(By.ID, "resource_scopes")
    scopes.send_keys("\nnotes.write: Change your notes")
    click_and_wait(chromium, chromium.find_element(By.ID, "save_resource"))
    listed = json.loads(console.cli("resources", "list", "--json").stdout)
    notes = next(resource for resource in listed if resource["id"] == "https://api.example.com/notes")
    assert [scope["name"] for scope in notes["scopes"]] == ["notes.read", "notes.write"], notes
    chromium.get(console.issuer + "/admin/resources")
    screens.check("resources")
    click_and_wait(chromium, chromium.find_element(By.CSS_SELECTOR, "tr[data-resource] a"))
    click_and_wait(chromium, chromium.find_element(By.ID, "delete_resource"))
    assert not json.loads(console.cli("resources", "list", "--json").stdout) or all(
        resource["id"] != "https://api.example.com/notes" for resource in json.loads(console.cli("resources", "list", "--json").stdout))

    # Keys: an active key cannot be withdrawn; after a rotation, a retired one can, and leaves the JWKS at once.
    chromium.get(console.issuer + "/admin/keys")
    click_and_wait(chromium, chromium.find_element(By.ID, "rotate_keys"))
    retired = [row.get_attribute("data-kid") for row in chromium.find_elements(By.CSS_SELECTOR, "tr[data-kid]") if "retired" in row.text]
    assert retired
    active = next(row.get_attribute("data-kid") for row in chromium.find_elements(By.CSS_SELECTOR, "tr[data-kid]") if "active" in row.text)
    cookies = {cookie["name"]: cookie["value"] for cookie in chromium.get_cookies()}
    refused = requests.post(console.issuer + "/admin/keys", cookies=cookies, allow_redirects=False, timeout=10,
                            data={"csrf_token": chromium.find_element(By.NAME, "csrf_token").get_attribute("value"), "change": "withdraw", "kid": active})
    assert refused.status_code == 400 and "still signs" in refused.text
    change(chromium, "withdraw", kid=retired[0])
    assert "left the JWKS" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    assert retired[0] not in {key["kid"] for key in requests.get(console.issuer + "/jwks", timeout=10).json()["keys"]}
    withdrawn = [event for event in json.loads(console.cli("events", "--json").stdout) if event["type"] == "key.removed"]
    assert withdrawn[-1]["details"] == {"kid": retired[0], "by": "withdrawn"} and withdrawn[-1]["actor"] == f"user:{root}"

    # The trail by actor: only root's changes; a request id followed shows that request's events.
    chromium.get(console.issuer + f"/admin/events?actor=user:{root}&period=day")
    rows = chromium.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert rows and all(f"user:{root}" in row.find_elements(By.TAG_NAME, "td")[2].text for row in rows)
    links = chromium.find_elements(By.CSS_SELECTOR, "tbody tr td:last-child a")
    assert links, "changes made through the console carry their request id"
    request_id = links[0].text
    click_and_wait(chromium, links[0])
    assert {row.find_elements(By.TAG_NAME, "td")[5].text for row in chromium.find_elements(By.CSS_SELECTOR, "tbody tr")} == {request_id}

    # The outbox, as the tool on the server's machine lists it.
    chromium.get(console.issuer + "/admin/outbox")
    shown = [section.get_attribute("data-message") for section in chromium.find_elements(By.CSS_SELECTOR, "section[data-message]")]
    assert shown == [message["id"] for message in json.loads(console.cli("outbox", "--json", "--limit", "50").stdout)]
    screens.check("outbox")

    # The overview hour by hour, and the providers (none configured).
    chromium.get(console.issuer + "/admin")
    assert len(chromium.find_elements(By.CSS_SELECTOR, "table.hours tbody tr")) == 24
    assert sum(int(meter.get_attribute("value")) for meter in chromium.find_elements(By.CSS_SELECTOR, "table.hours meter")) > 0
    chromium.get(console.issuer + "/admin/providers")
    assert "No identity provider is configured" in chromium.page_source


def test_an_admin_gives_and_takes_roles_which_an_operator_cannot(console, chromium):
    as_root(chromium, console)
    chromium.find_element(By.ID, "role_username").send_keys("alice")
    chromium.find_element(By.ID, "role").send_keys("operator")
    click_and_wait(chromium, chromium.find_element(By.ID, "grant_role"))
    assert "role was given" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    assert "alice: operator" in chromium.find_element(By.CSS_SELECTOR, "li[data-admin=alice]").text
    assert not chromium.find_elements(By.CSS_SELECTOR, "li[data-admin=root] form"), "an admin's own role has no button"
    cookies = {cookie["name"]: cookie["value"] for cookie in chromium.get_cookies()}
    own = requests.post(console.issuer + "/admin/roles", cookies=cookies, allow_redirects=False, timeout=10,
                        data={"csrf_token": chromium.find_element(By.NAME, "csrf_token").get_attribute("value"), "change": "revoke", "username": "root"})
    assert own.status_code == 400 and "cannot take your own role" in own.text

    # alice, an operator now (with a second factor set up on the way), changes accounts but not roles.
    import pyotp

    browser = Browser(console)
    page = browser.submit_login(browser.get(console.issuer + "/admin"), "alice", PASSWORD)
    if 'data-node="mfa.enroll.totp"' in page.text:
        key = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", page.text).group(1).replace(" ", "")
        form = forms(page.text)[0]
        page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], code=pyotp.TOTP(key).now(), action="submit"))
        form = forms(page.text)[0]
        page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="submit"))
    assert page.status_code == 200 and "alice · operator" in page.text, page.text[:300]
    assert 'id="grant_role"' not in page.text
    token = form_token(browser.get(console.issuer + "/admin/users").text)
    refused = browser.session.post(console.issuer + "/admin/roles", data={"csrf_token": token, "change": "grant", "username": "nobody", "role": "admin"},
                                   allow_redirects=False, timeout=10)
    assert refused.status_code == 403 and "Only an admin" in refused.text

    chromium.refresh()
    change(chromium, "revoke", username="alice")
    assert "role was taken away" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    types = [(event["type"], event["actor"]) for event in json.loads(console.cli("events", "--user", "alice", "--json").stdout)
             if event["type"].startswith("admin_role.")]
    root = user_id(console, "root")
    assert types[-2:] == [("admin_role.granted", f"user:{root}"), ("admin_role.revoked", f"user:{root}")], types


def test_every_console_page_passes_axe_in_light_and_dark_mode(console, chromium, screenshots):
    screens = Screens(chromium, screenshots, prefix="console-schemes")
    as_root(chromium, console)
    alice = user_id(console, "alice")
    pages = [("overview", ""), ("users", "/users"), ("user", f"/users/{alice}"), ("clients", "/clients"), ("client", "/clients/web"),
             ("resources", "/resources"), ("keys", "/keys"), ("providers", "/providers"), ("events", "/events"), ("outbox", "/outbox")]
    try:
        for scheme in ("light", "dark"):
            dark(chromium, on=scheme == "dark")
            for name, path in pages:
                chromium.get(console.issuer + "/admin" + path)
                assert chromium.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
                screens.check(f"{scheme}-{name}")
    finally:
        dark(chromium, on=False)


def test_the_console_can_be_turned_off():
    server = Server(config={"admin_console": {"enabled": False}})
    try:
        assert requests.get(server.issuer + "/admin", allow_redirects=False, timeout=10).status_code == 404
    finally:
        server.stop()


def test_the_console_can_be_moved_to_the_metrics_listener(tmp_path):
    port = free_port()
    server = Server(config={"metrics": {"port": port}, "admin_console": {"listener": "metrics"},
                            "sign_on": {"second_factor": "if_enrolled", "factors": ["totp"]}})
    try:
        server.add_user("root", PASSWORD, email="root@example.com")
        server.cli("admins", "add", "root")
        internal = f"http://127.0.0.1:{port}"
        assert requests.get(server.issuer + "/admin", allow_redirects=False, timeout=10).status_code == 404
        assert requests.get(internal + "/metrics", timeout=10).status_code == 200

        # The whole sign-in happens on the internal listener: the hosted pages it needs are served there too.
        class Internal:
            issuer = internal

        key = enroll_totp_through_the_console(Internal, "root")
        assert key
        browser = Browser(Internal)
        page = browser.submit_login(browser.get(internal + "/admin"), "root", PASSWORD)
        assert 'data-node="mfa.totp"' in page.text or 'data-node="mfa.choose"' in page.text, page.text[:300]
        if 'data-node="mfa.choose"' in page.text:
            form = forms(page.text)[0]
            page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], factor="totp", action="submit"))
        form = forms(page.text)[0]
        page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], code=next_code(f"{internal} root", key), action="submit"))
        assert page.url == internal + "/admin" and page.status_code == 200 and "root · admin" in page.text, page.text[:300]
        assert "text/css" in browser.session.get(internal + "/assets/gatehouse.css", timeout=10).headers["Content-Type"]
        assert "Content-Security-Policy" in page.headers
    finally:
        server.stop()

    # Without a metrics listener to move to, the server refuses to start and names the setting.
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"admin_console": {"listener": "metrics"}}))
    result = gatehouse("serve", "--config", str(config), "--database", str(tmp_path / "g.sqlite"), "--port", str(free_port()), check=False,
                       timeout=60)
    assert result.returncode != 0 and "admin_console.listener" in result.stderr, result.stderr
