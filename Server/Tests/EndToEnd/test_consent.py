"""Consent for third-party clients: a client the operator registers with `--third-party` gets a code only for the
scopes a person allowed it, on a consent node after sign-in (the hosted page and the device grant's
confirmation; never the flow API, which third parties cannot drive). Allowed once, a sign-in does not ask again; more scopes ask for the new ones only; `prompt=consent`
always asks; `prompt=none` without consent is `consent_required`; Deny is `access_denied`; revoking a consent revokes
the client's tokens. First-party clients never ask. Played by the cookie-keeping browser of the harness, the flow API
(refusing the third party), an RFC 8628 device and headless Chromium with axe-core."""
import json
import os
import re
import time
from urllib.parse import urljoin

import pytest
import requests

from gatehouse_harness import (APP_REDIRECT, PASSWORD, RFC7636_VERIFIER, WEB_REDIRECT, WEB_SECRET, Browser, authorize_url,
                               conforms_to_admin_openapi, error_of, forms, gatehouse, redeem, redirect_parameters, refresh, start, submit)

LOGO = "https://partner.example/logo.png"
HOMEPAGE = "https://partner.example/"


@pytest.fixture(scope="module")
def partner(server):
    """The session's server with two third-party clients: a web application and a native app with the device grant."""
    server.add_client("partner", WEB_REDIRECT, secret=WEB_SECRET,
                      extra=["--name", "Partner App", "--third-party", "--logo-uri", LOGO, "--client-uri", HOMEPAGE,
                             "--scope", "openid profile email offline_access"])
    server.cli("clients", "add", "partner-app", "--public", "--third-party", "--name", "Partner Phone", "--redirect-uri", APP_REDIRECT,
               "--device-grant")
    return server


def person(server, name):
    """A new user for one test, so that what one test allowed never answers another's question."""
    username = f"{name}-{time.monotonic_ns()}"
    server.add_user(username, PASSWORD)
    return username


def partner_url(server, **overrides):
    return authorize_url(server, client_id="partner", **overrides)


def node_of(page):
    """The flow node a hosted page shows."""
    found = re.search(r'data-node="([^"]+)"', page.text)
    return found.group(1) if found else None


def decide(browser, page, action):
    """Presses Allow (`submit`) or Deny on the consent page."""
    form = forms(page.text)[0]
    return browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": action})


def events(server, kind, username):
    listed = json.loads(server.cli("events", "--type", kind, "--json").stdout)
    user_id = json.loads(server.cli("users", "list", "--json").stdout)
    ids = [user["id"] for user in user_id if user["username"] == username]
    return [event for event in listed if event.get("user_id") in ids]


def test_a_third_party_client_asks_once_and_gets_only_what_was_allowed(partner):
    username = person(partner, "consenting")
    browser = Browser(partner)
    page = browser.sign_in(partner_url(partner), username, PASSWORD)
    assert page.status_code == 200 and node_of(page) == "consent", page.text
    assert "Allow Partner App access?" in page.text and f"You are signed in as {username}" in page.text
    assert f'<img src="{LOGO}"' in page.text and f'href="{HOMEPAGE}"' in page.text
    for words in ["Know who you are", "See your name and username", "Stay signed in until you sign out"]:
        assert words in page.text
    assert "See your email address" not in page.text  # not asked for

    answered = decide(browser, page, "submit")
    parameters = redirect_parameters(answered)
    assert parameters["state"] == "s-123" and "code" in parameters, parameters
    tokens = redeem(partner, parameters["code"], auth=("partner", WEB_SECRET))
    assert tokens.status_code == 200, tokens.text
    assert set(tokens.json()["scope"].split()) == {"openid", "profile", "offline_access"}
    granted = events(partner, "consent.granted", username)
    assert granted and granted[0]["client_id"] == "partner" and granted[0]["details"]["scope"] == "openid profile offline_access"

    # Allowed: the browser's session signs in again without asking.
    again = browser.get(partner_url(partner))
    assert again.status_code in (302, 303) and "code" in redirect_parameters(again), again.text
    # Silent sign-in too.
    silent = browser.get(partner_url(partner, prompt="none"))
    assert "code" in redirect_parameters(silent)

    # One more scope: only the new one is asked for; allowed, the code carries all of them.
    more = browser.get(partner_url(partner, scope="openid profile email offline_access"))
    assert more.status_code == 200 and node_of(more) == "consent", more.text
    assert "See your email address" in more.text and "Know who you are" not in more.text
    code = redirect_parameters(decide(browser, more, "submit"))["code"]
    widened = redeem(partner, code, auth=("partner", WEB_SECRET)).json()
    assert set(widened["scope"].split()) == {"openid", "profile", "email", "offline_access"}

    # prompt=consent always asks, for every scope of the request.
    forced = browser.get(partner_url(partner, prompt="consent"))
    assert forced.status_code == 200 and node_of(forced) == "consent"
    assert "Know who you are" in forced.text
    assert "code" in redirect_parameters(decide(browser, forced, "submit"))

    listed = json.loads(partner.cli("users", "consents", username, "--json").stdout)
    assert [(entry["client_id"], set(entry["scopes"])) for entry in listed] == [("partner", {"openid", "profile", "email", "offline_access"})]


def test_deny_and_silent_requests_without_consent_are_refused(partner):
    username = person(partner, "denying")
    browser = Browser(partner)
    page = browser.sign_in(partner_url(partner), username, PASSWORD)
    assert node_of(page) == "consent"
    refused = redirect_parameters(decide(browser, page, "deny"))
    assert refused["error"] == "access_denied" and refused["state"] == "s-123" and refused["iss"] == partner.issuer, refused
    assert "code" not in refused
    assert events(partner, "consent.denied", username)
    assert not events(partner, "consent.granted", username)

    # A denied sign-in leaves no session. A first-party client never asks: signing in to it does not.
    first_party = browser.sign_in(authorize_url(partner), username, PASSWORD)
    assert "code" in redirect_parameters(first_party)
    # Signed in now, but nothing allowed: a silent request cannot ask.
    silent = redirect_parameters(browser.get(partner_url(partner, prompt="none")))
    assert silent["error"] == "consent_required", silent
    # The consent page of a session asks for consent only, and refuses a form without the browser's token (CSRF).
    page = browser.get(partner_url(partner))
    assert node_of(page) == "consent"
    form = forms(page.text)[0]
    forged = requests.post(urljoin(page.url, form["action"]), data={**form["inputs"], "action": "submit"}, allow_redirects=False, timeout=10)
    assert forged.status_code == 403
    stolen = browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "csrf_token": "x" * 43, "action": "submit"})
    assert stolen.status_code == 403
    assert "code" in redirect_parameters(decide(browser, page, "submit"))

    # Signed out while the consent page was open: Allow issues nothing.
    page = browser.get(partner_url(partner, prompt="consent"))
    assert node_of(page) == "consent"
    for cookie in [cookie for cookie in browser.session.cookies if cookie.name == "gatehouse_session"]:
        browser.session.cookies.clear(cookie.domain, cookie.path, cookie.name)
    late = decide(browser, page, "submit")
    assert late.status_code == 400 and "You signed out while this page was open" in late.text, late.text


def test_claims_asked_for_by_name_are_allowed_recorded_and_released_as_their_scopes(partner):
    """Attack script: `claims` asked for the email address, phone and address of a person who was asked only to let the
    client know who they are; with `prompt=none` after an `openid`-only consent it got them with no page at all."""
    claims = json.dumps({"userinfo": {"email": None, "phone_number": None, "address": None, "name": None}})
    username = person(partner, "claims")
    browser = Browser(partner)
    page = browser.sign_in(partner_url(partner, scope="openid", claims=claims), username, PASSWORD)
    assert node_of(page) == "consent", page.text
    for words in ["Know who you are", "See your name and username", "See your email address"]:
        assert words in page.text
    # The client may not ask for the phone number or address by scope, so not by name either.
    assert "See your phone number" not in page.text
    code = redirect_parameters(decide(browser, page, "submit"))["code"]
    tokens = redeem(partner, code, auth=("partner", WEB_SECRET)).json()
    info = requests.get(partner.issuer + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10).json()
    assert info["email"] == f"{username}@example.com" and "phone_number" not in info and "address" not in info, info
    listed = json.loads(partner.cli("users", "consents", username, "--json").stdout)
    assert [(entry["client_id"], sorted(entry["scopes"])) for entry in listed] == [("partner", ["email", "openid", "profile"])], listed

    # Allowed `openid` only: a silent request naming the email address and username is refused, not answered.
    username = person(partner, "silent-claims")
    browser = Browser(partner)
    assert "code" in redirect_parameters(decide(browser, browser.sign_in(partner_url(partner, scope="openid"), username, PASSWORD), "submit"))
    wanted = json.dumps({"userinfo": {"email": None}, "id_token": {"preferred_username": None}})
    silent = redirect_parameters(browser.get(partner_url(partner, scope="openid", prompt="none", claims=wanted)))
    assert silent.get("error") == "consent_required" and "code" not in silent, silent
    # Asked in the open, the page names what the claims would release.
    page = browser.get(partner_url(partner, scope="openid", claims=wanted))
    assert node_of(page) == "consent" and "See your email address" in page.text and "See your name and username" in page.text


def test_revoking_a_consent_revokes_the_clients_tokens_and_asks_again(partner):
    username = person(partner, "revoking")
    browser = Browser(partner)
    code = redirect_parameters(decide(browser, browser.sign_in(partner_url(partner), username, PASSWORD), "submit"))["code"]
    first = redeem(partner, code, auth=("partner", WEB_SECRET)).json()
    rotation = refresh(partner, first["refresh_token"], auth=("partner", WEB_SECRET))
    assert rotation.status_code == 200, rotation.text
    tokens = rotation.json()
    userinfo = requests.get(partner.issuer + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    assert userinfo.status_code == 200

    revoked = partner.cli("users", "consents", username, "--revoke", "partner")
    assert "its tokens work no more" in revoked.stdout
    assert events(partner, "consent.revoked", username)
    assert json.loads(partner.cli("users", "consents", username, "--json").stdout) == []
    # Every token of the client for this person stops: the live refresh token and the access token.
    rotated = refresh(partner, tokens["refresh_token"], auth=("partner", WEB_SECRET))
    assert error_of(rotated) == "invalid_grant", rotated.text
    stale = requests.get(partner.issuer + "/userinfo", headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    assert stale.status_code == 401
    # The next sign-in asks again; revoking twice says there is nothing to revoke.
    assert node_of(browser.get(partner_url(partner))) == "consent"
    again = partner.cli("users", "consents", username, "--revoke", "partner", check=False)
    assert again.returncode != 0 and "has not allowed partner anything" in again.stderr


def test_a_third_party_client_cannot_drive_the_flow_api(partner):
    """Attack script: a third-party app started a native flow, collected the person's password itself, answered the
    consent node itself, and got a code, a refresh token and a `consent.granted` in the person's name. The flow API is
    for the operator's own apps: it refuses the third party at the start, pointing to the browser."""
    username = person(partner, "native")
    refused = start(partner, client_id="partner-app")
    assert refused.status_code == 400 and error_of(refused) == "unauthorized_client", refused.text
    assert "third-party" in refused.json()["error_description"] and "browser" in refused.json()["error_description"]
    assert not events(partner, "consent.granted", username)
    # The same app still signs people in through the browser, where the person answers the consent page.
    browser = Browser(partner)
    page = browser.sign_in(authorize_url(partner, client_id="partner-app", redirect_uri=APP_REDIRECT), username, PASSWORD)
    assert node_of(page) == "consent"
    assert "code" in redirect_parameters(decide(browser, page, "submit"))


def test_the_device_confirmation_is_the_consent_of_a_third_party_device(partner):
    username = person(partner, "device")
    codes = requests.post(partner.issuer + "/device_authorization", data={"client_id": "partner-app", "scope": "openid profile"}, timeout=10)
    assert codes.status_code == 200, codes.text
    browser = Browser(partner)
    page = browser.get(partner.issuer + "/device")
    form = forms(page.text)[0]
    login = browser.post(partner.issuer + form["action"], {**form["inputs"], "user_code": codes.json()["user_code"]})
    confirmation = browser.submit_login(login, username, PASSWORD)
    assert "/device/confirm?id=" in confirmation.url, confirmation.text
    assert "Partner Phone is not run by this service" in confirmation.text
    form = forms(confirmation.text)[0]
    done = browser.post(partner.issuer + form["action"], {**form["inputs"], "decision": "allow"})
    assert done.status_code == 200, done.text
    listed = json.loads(partner.cli("users", "consents", username, "--json").stdout)
    assert [(entry["client_id"], entry["scopes"]) for entry in listed] == [("partner-app", ["openid", "profile"])]


def test_the_admin_api_registers_third_party_clients_and_lists_consents(partner):
    secret = json.loads(partner.cli("admin-tokens", "create", f"consent-{time.monotonic_ns()}", "--json").stdout)["token"]
    headers = {"Authorization": "Bearer " + secret}

    def admin(response):
        return conforms_to_admin_openapi(partner, response)

    created = admin(requests.post(partner.issuer + "/admin/v1/clients", headers=headers, timeout=10, json={
        "id": f"partner-{time.monotonic_ns()}", "redirect_uris": [WEB_REDIRECT], "third_party": True, "logo_uri": LOGO, "client_uri": HOMEPAGE}))
    assert created.status_code == 201, created.text
    client = created.json()["client"]
    assert client["third_party"] is True and client["logo_uri"] == LOGO and client["client_uri"] == HOMEPAGE
    unsafe = admin(requests.post(partner.issuer + "/admin/v1/clients", headers=headers, timeout=10, json={
        "id": f"partner-{time.monotonic_ns()}", "redirect_uris": [WEB_REDIRECT], "third_party": True, "logo_uri": "javascript:alert(1)"}))
    assert unsafe.status_code == 400 and "logo URI" in unsafe.json()["detail"], unsafe.text

    username = person(partner, "listed")
    browser = Browser(partner)
    decide(browser, browser.sign_in(partner_url(partner), username, PASSWORD), "submit")
    user_id = next(user["id"] for user in json.loads(partner.cli("users", "list", "--json").stdout) if user["username"] == username)
    listed = admin(requests.get(f"{partner.issuer}/admin/v1/users/{user_id}/consents", headers=headers, timeout=10))
    assert listed.status_code == 200 and [item["client_id"] for item in listed.json()["items"]] == ["partner"], listed.text
    # The command line reads the same through the API (`--server`) as from the database.
    remote = gatehouse("users", "consents", username, "--json", "--server", partner.issuer, env={"GATEHOUSE_ADMIN_TOKEN": secret})
    assert json.loads(remote.stdout) == json.loads(partner.cli("users", "consents", username, "--json").stdout) == listed.json()["items"]
    removed = admin(requests.delete(f"{partner.issuer}/admin/v1/users/{user_id}/consents/partner", headers=headers, timeout=10))
    assert removed.status_code == 204
    gone = admin(requests.delete(f"{partner.issuer}/admin/v1/users/{user_id}/consents/partner", headers=headers, timeout=10))
    assert gone.status_code == 404 and gone.headers["Content-Type"].startswith("application/problem+json")


def test_consent_in_chromium(partner, chromium, screenshots):
    """The whole consent story in a real browser: the page names the app and the scopes (axe-core finds nothing
    serious); Allow signs in; the next sign-in does not ask; `prompt=consent` asks again; Deny answers access_denied;
    revoking on the account page stops the app's refresh token."""
    from axe_selenium_python import Axe
    from selenium.webdriver.common.by import By

    from browser_steps import click_and_wait, page_node, press, sign_out, signed_in

    def sign_in_here():
        chromium.find_element(By.ID, "username").send_keys(username)
        chromium.find_element(By.ID, "password").send_keys(PASSWORD)
        press(chromium, "submit")

    folder = screenshots
    username = person(partner, "chromium")
    chromium.get(partner_url(partner))
    sign_in_here()
    assert page_node(chromium) == "consent"
    assert "Partner App" in chromium.find_element(By.TAG_NAME, "h1").text
    assert "See your name and username" in chromium.page_source and "Stay signed in until you sign out" in chromium.page_source
    assert HOMEPAGE in chromium.page_source
    chromium.save_screenshot(os.path.join(folder, "consent.png"))
    axe = Axe(chromium)
    axe.inject()
    results = axe.run()
    serious = [violation for violation in results["violations"] if violation["impact"] in ("serious", "critical")]
    assert not serious, json.dumps(serious, indent=1)[:3000]
    press(chromium, "submit")
    assert signed_in(chromium)
    code = re.search(r"[?&]code=([^&]+)", chromium.current_url).group(1)
    tokens = redeem(partner, code, auth=("partner", WEB_SECRET)).json()
    assert "refresh_token" in tokens

    # Signed out and in again: allowed once, not asked again.
    sign_out(chromium, partner)
    chromium.get(partner_url(partner))
    sign_in_here()
    assert signed_in(chromium), chromium.current_url
    # prompt=consent asks again (the browser is signed in: consent only); Deny answers access_denied.
    chromium.get(partner_url(partner, prompt="consent"))
    assert page_node(chromium) == "consent"
    press(chromium, "deny")
    assert chromium.current_url.startswith(WEB_REDIRECT) and "error=access_denied" in chromium.current_url

    # The account page, in the same browser: revoking the app stops its refresh token.
    chromium.get(partner.issuer + "/account")
    click_and_wait(chromium, chromium.find_element(By.XPATH, "//div[@data-app='partner']//button"))
    assert "access was revoked" in chromium.find_element(By.CSS_SELECTOR, "p.info").text
    chromium.save_screenshot(os.path.join(folder, "consent-revoked.png"))
    assert refresh(partner, tokens["refresh_token"], auth=("partner", WEB_SECRET)).json()["error"] == "invalid_grant"
