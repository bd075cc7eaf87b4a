"""Attack scripts: a console operator tries to become an admin, the three ways found from outside, and is refused each
time, while an admin does the same things. (a) Rotating the secret of a client that holds gatehouse:admin, whose new
secret would get an admin API token; (b) giving a client gatehouse:admin, a standing admin credential that outlives the
operator's role; (c) moving an admin's email address to the operator's own, with "verified" ticked, and resetting the
admin's second factors, so that recovery hands the operator the admin's account. An operator's change of an ordinary
person's address still works, and the old address is told."""
import json
import re
from urllib.parse import urljoin

import pytest
import requests

from gatehouse_harness import PASSWORD, Browser, Server, form_token, forms, outbox

AUTOMATION_SECRET = "automation-secret-0123456789abcdef0123456789"


@pytest.fixture(scope="module")
def site():
    server = Server(config={"sign_on": {"second_factor": "if_enrolled", "factors": ["totp"]}})
    try:
        for username in ("root", "mallory", "carol"):
            server.add_user(username, PASSWORD, email=f"{username}@example.com")
        server.cli("admins", "add", "root")
        server.cli("admins", "add", "mallory", "--role", "operator")
        server.add_client("automation", "https://ops.example/cb", secret=AUTOMATION_SECRET, extra=["--scope", "gatehouse:admin"])
        server.add_client("reports", "https://ops.example/cb", secret=AUTOMATION_SECRET, extra=["--scope", "openid"])
        yield server
    finally:
        server.stop()


def console_browser(server, username):
    """A browser signed in to the console as `username`, who sets an authenticator app up on the way."""
    import pyotp

    browser = Browser(server)
    page = browser.submit_login(browser.get(server.issuer + "/admin"), username, PASSWORD)
    assert 'data-node="mfa.enroll.totp"' in page.text, page.text[:500]
    key = re.search(r"Enter this key instead: ([A-Z2-7 ]+)", page.text).group(1).replace(" ", "")
    form = forms(page.text)[0]
    page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], code=pyotp.TOTP(key).now(), action="submit"))
    form = forms(page.text)[0]
    page = browser.post(urljoin(page.url, form["action"]), dict(form["inputs"], action="submit"))
    assert page.status_code == 200 and f"{username} ·" in page.text, page.text[:300]
    return browser


@pytest.fixture(scope="module")
def mallory(site):
    return console_browser(site, "mallory")


@pytest.fixture(scope="module")
def root(site):
    return console_browser(site, "root")


def submit(browser, path, **fields):
    """Posts a console form as the page would, with the form token of this browser's session; the answer after redirects."""
    token = form_token(browser.get(browser.server.issuer + "/admin/users").text)
    return browser.post(browser.server.issuer + "/admin" + path, dict(fields, csrf_token=token))


def account(server, username):
    return next(user for user in json.loads(server.cli("users", "list", "--json").stdout) if user["username"] == username)


def user_id(server, username):
    return account(server, username)["id"]


def admin_token(server, secret):
    return requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                         auth=("automation", secret), timeout=10)


def client_scopes(server, client_id):
    return next(client["scopes"] for client in json.loads(server.cli("clients", "list", "--json").stdout) if client["id"] == client_id)


def test_a_an_operator_cannot_rotate_the_secret_of_an_admin_client(site, mallory, root):
    answer = submit(mallory, "/clients/automation", change="rotate_secret")
    assert answer.status_code == 403 and "Only an admin may rotate the secret of a client with the scope gatehouse:admin" in answer.text
    assert admin_token(site, AUTOMATION_SECRET).status_code == 200, "the secret still works: nothing was rotated"
    # Nor delete it, nor change it.
    assert submit(mallory, "/clients/automation", change="delete").status_code == 403
    assert submit(mallory, "/clients/automation", change="save", etag="*", name="Mine now", scopes="gatehouse:admin").status_code == 403
    assert "gatehouse:admin" in client_scopes(site, "automation")

    # An admin may: the new secret is shown once and works, the old one no longer does.
    shown = submit(root, "/clients/automation", change="rotate_secret")
    assert shown.status_code == 200, shown.text[:300]
    secret = re.search(r'<pre id="client_secret">([^<]+)</pre>', shown.text)
    assert secret, shown.text
    assert admin_token(site, secret.group(1)).status_code == 200
    assert admin_token(site, AUTOMATION_SECRET).status_code == 401


def test_b_an_operator_cannot_give_a_client_an_admin_scope(site, mallory, root):
    for scopes in ("openid gatehouse:admin", "gatehouse:admin:read"):
        answer = submit(mallory, "/clients/reports", change="save", etag="*", scopes=scopes, redirect_uris="https://ops.example/cb")
        assert answer.status_code == 403 and "Only an admin may give an admin scope to a client" in answer.text, answer.text[:300]
    assert client_scopes(site, "reports") == ["openid"]
    # An ordinary change of the same client is the operator's to make.
    saved = submit(mallory, "/clients/reports", change="save", etag="*", name="Reports", scopes="openid profile", redirect_uris="https://ops.example/cb")
    assert saved.status_code == 200 and client_scopes(site, "reports") == ["openid", "profile"]
    # An admin may give one.
    given = submit(root, "/clients/reports", change="save", etag="*", scopes="gatehouse:admin:read", redirect_uris="https://ops.example/cb")
    assert given.status_code == 200 and client_scopes(site, "reports") == ["gatehouse:admin:read"]


def test_c_an_operator_cannot_take_over_an_admins_account(site, mallory, root):
    admin = user_id(site, "root")
    moved = submit(mallory, f"/users/{admin}", change="profile", etag="*", email="mallory@example.com", email_verified="on")
    assert moved.status_code == 403 and "Only an admin may change the email address or phone number of root" in moved.text, moved.text[:300]
    reset = submit(mallory, f"/users/{admin}", change="reset_factors")
    assert reset.status_code == 403 and "Only an admin may reset the second factors of root" in reset.text
    assert account(site, "root")["email"] == "root@example.com" and account(site, "root")["email_verified"]
    # The operator's own account is a role holder's too.
    own = submit(mallory, f"/users/{user_id(site, 'mallory')}", change="reset_factors")
    assert own.status_code == 403
    # Renaming is not a way in: it stays the operator's to do.
    renamed = submit(mallory, f"/users/{admin}", change="profile", etag="*", email="root@example.com", email_verified="on", name="Root Example")
    assert renamed.status_code == 200, renamed.text[:300]


def test_an_operators_change_of_an_address_is_told_to_the_old_one(site, mallory):
    carol = user_id(site, "carol")
    changed = submit(mallory, f"/users/{carol}", change="profile", etag="*", email="carol@elsewhere.example")
    assert changed.status_code == 200, changed.text[:300]
    assert [message for message in outbox(site, "carol@example.com") if message["template"] == "email_changed"]


def test_the_console_signs_out_after_a_confirmation(site):
    """Every console page links to sign-out, which asks first; confirmed, the console asks for a sign-in again."""
    site.add_user("dana", PASSWORD, email="dana@example.com")
    site.cli("admins", "add", "dana", "--role", "viewer")
    browser = console_browser(site, "dana")
    page = browser.get(site.issuer + "/admin/users")
    assert '<a href="/logout">Sign out</a>' in page.text
    asked = browser.get(site.issuer + "/logout")
    assert asked.status_code == 200 and "Sign out?" in asked.text
    form = forms(asked.text)[0]
    done = browser.post(urljoin(asked.url, form["action"]), {**form["inputs"], "confirm": "yes"})
    assert done.status_code == 200 and "You are signed out" in done.text
    assert "/login?flow=" in browser.get(site.issuer + "/admin").url
