"""The hosted sign-in page, its cookies and headers, throttling, locking and sign-out, as a browser meets them."""
import re

import requests

from conftest import PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import authorize_url, Browser, forms, get_code, redeem, redirect_parameters, Server


def test_sign_in_form_works_with_password_managers_and_carries_csrf(server):
    browser = Browser(server)
    page = browser.get(authorize_url(server, login_hint="alice"))
    assert page.status_code == 200
    form = forms(page.text)[0]
    assert form["method"] == "post"
    fields = {field.get("name"): field for field in form["fields"] if field.get("name")}
    assert fields["username"]["autocomplete"] == "username" and fields["username"]["value"] == "alice"
    assert fields["password"]["autocomplete"] == "current-password" and fields["password"]["type"] == "password"
    assert '<label for="username">' in page.text and '<label for="password">' in page.text
    assert len(form["inputs"]["csrf_token"]) >= 43
    assert "Web App" in page.text  # the client's display name
    assert "<script" not in page.text  # works without JavaScript
    assert page.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["Cache-Control"] == "no-store"


def test_cookies_are_http_only_and_lax_and_host_prefixed_on_https():
    def login_cookie(server):
        response = requests.get(authorize_url(server), allow_redirects=False, timeout=10)
        return response.headers["Set-Cookie"]

    https = Server(config={"issuer": "https://id.example.test"})
    try:
        https.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        https.issuer = f"http://127.0.0.1:{https.port}"  # the process itself speaks http behind a TLS proxy
        cookie = login_cookie(https)
        assert cookie.startswith("__Host-gatehouse_login=")
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
        assert "Domain" not in cookie
        assert requests.get(https.issuer + "/health/live", timeout=10).headers["Strict-Transport-Security"]
    finally:
        https.stop()


def test_session_cookie_on_loopback_and_new_session_id_at_every_sign_in(server):
    browser = Browser(server)
    get_code(server, browser)
    first = browser.session.cookies.get("gatehouse_session")
    assert first
    page = browser.get(authorize_url(server, prompt="login"))
    response = browser.submit_login(page, "alice", PASSWORD)
    set_cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie and "Secure" not in set_cookie
    second = browser.session.cookies.get("gatehouse_session")
    assert second and second != first


def test_wrong_password_and_unknown_user_look_the_same(server):
    browser = Browser(server)
    page = browser.get(authorize_url(server))
    wrong_password = browser.submit_login(page, "alice", "not the password")
    page = browser.get(authorize_url(server))
    unknown_user = browser.submit_login(page, "nobody-here", "not the password")
    assert wrong_password.status_code == unknown_user.status_code == 401
    message = re.search(r'role="alert"[^>]*>(.*?)<', wrong_password.text).group(1)
    assert message == re.search(r'role="alert"[^>]*>(.*?)<', unknown_user.text).group(1)
    assert message == "The username or password is incorrect."


def test_form_without_matching_csrf_token_is_refused(server):
    browser = Browser(server)
    page = browser.get(authorize_url(server))
    data = dict(forms(page.text)[0]["inputs"])
    data.update({"username": "alice", "password": PASSWORD})
    # A forged form posted from another browser (no cookie) or with another token is refused.
    forged = requests.post(server.issuer + "/login", data=data, allow_redirects=False, timeout=10)
    assert forged.status_code == 403 and "Location" not in forged.headers
    tampered = dict(data, csrf_token="x" * 43)
    response = browser.session.post(server.issuer + "/login", data=tampered, allow_redirects=False, timeout=10)
    assert response.status_code == 403 and "Location" not in response.headers


def test_throttling_blocks_after_repeated_failures_for_real_and_unknown_accounts(server):
    server.add_user("bob", PASSWORD)
    for username in ["bob", "ghost"]:
        browser = Browser(server)
        statuses = []
        for _ in range(5):
            statuses.append(browser.submit_login(browser.get(authorize_url(server)), username, "wrong password!").status_code)
        assert statuses == [401] * 5
        blocked = browser.submit_login(browser.get(authorize_url(server)), username, PASSWORD)
        assert blocked.status_code == 429
        assert "Too many failed attempts" in blocked.text
        assert "Location" not in blocked.headers


def test_locked_account_says_so_only_after_the_right_password(server):
    server.add_user("carol", PASSWORD)
    server.cli("users", "lock", "carol")
    browser = Browser(server)
    wrong = browser.submit_login(browser.get(authorize_url(server)), "carol", "wrong password!")
    assert wrong.status_code == 401 and "locked" not in wrong.text
    right = browser.submit_login(browser.get(authorize_url(server)), "carol", PASSWORD)
    assert right.status_code == 403 and "This account is locked" in right.text
    server.cli("users", "unlock", "carol")
    unlocked = browser.submit_login(browser.get(authorize_url(server)), "carol", PASSWORD)
    assert "code" in redirect_parameters(unlocked)


def test_operator_unlock_lifts_the_pause_on_a_guessed_name(server):
    server.add_user("carl", PASSWORD)
    attacker = Browser(server)
    for _ in range(5):
        attacker.submit_login(attacker.get(authorize_url(server)), "carl", "not his password")
    stranger = Browser(server)  # no device cookie for carl: the name's pause applies
    paused = stranger.submit_login(stranger.get(authorize_url(server)), "carl", PASSWORD)
    assert paused.status_code == 429, paused.status_code
    result = server.cli("users", "unlock", "carl")
    assert "forgot its wrong passwords" in result.stdout
    again = stranger.submit_login(stranger.get(authorize_url(server)), "carl", PASSWORD)
    assert "code" in redirect_parameters(again)


def test_locking_revokes_existing_tokens(server):
    server.add_user("dave", PASSWORD)
    browser = Browser(server)
    response = browser.sign_in(authorize_url(server), "dave", PASSWORD)
    tokens = redeem(server, redirect_parameters(response)["code"]).json()
    assert requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10).status_code == 200
    server.cli("users", "lock", "dave")
    assert requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10).status_code == 401


def test_rp_initiated_logout(server):
    browser = Browser(server)
    tokens = redeem(server, get_code(server, browser)).json()
    # Without an id_token_hint the user must confirm; a plain GET does not sign out.
    confirm = browser.get(server.issuer + "/logout")
    assert confirm.status_code == 200 and "Sign out?" in confirm.text
    assert browser.get(authorize_url(server, prompt="none")).status_code == 302
    assert "code" in redirect_parameters(browser.get(authorize_url(server, prompt="none")))
    # An unregistered post-logout URI is refused.
    bad = browser.get(server.issuer + "/logout?" + requests.compat.urlencode({
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": "https://evil.example/"}))
    assert bad.status_code == 400 and "Location" not in bad.headers
    # With a valid hint the session ends and the browser returns to the client with its state.
    out = browser.get(server.issuer + "/logout?" + requests.compat.urlencode({
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": "http://127.0.0.1:9/signed-out", "state": "bye"}))
    assert out.status_code == 302
    assert out.headers["Location"] == "http://127.0.0.1:9/signed-out?state=bye"
    after = browser.get(authorize_url(server, prompt="none"))
    assert redirect_parameters(after)["error"] == "login_required"


def test_logout_hint_for_someone_else_or_a_deleted_client_asks_first(server):
    server.add_user("mallory", PASSWORD)
    server.add_client("gone", WEB_REDIRECT, secret=WEB_SECRET)
    attacker = Browser(server)
    mallorys = redeem(server, redirect_parameters(attacker.sign_in(authorize_url(server), "mallory", PASSWORD))["code"]).json()
    victim = Browser(server)
    get_code(server, victim)
    # Mallory's own, valid ID token planted on a page Alice visits does not sign Alice out.
    planted = victim.get(server.issuer + "/logout?" + requests.compat.urlencode({"id_token_hint": mallorys["id_token"]}))
    assert planted.status_code == 200 and "Sign out?" in planted.text
    assert "code" in redirect_parameters(victim.get(authorize_url(server, prompt="none")))
    # Alice's own hint, but for a client deleted since, also asks.
    for_deleted = Browser(server)
    code = redirect_parameters(for_deleted.sign_in(authorize_url(server, client_id="gone"), "alice", PASSWORD))["code"]
    token = redeem(server, code, auth=("gone", WEB_SECRET)).json()["id_token"]
    server.cli("clients", "delete", "gone")
    asked = for_deleted.get(server.issuer + "/logout?" + requests.compat.urlencode({"id_token_hint": token}))
    assert asked.status_code == 200 and "Sign out?" in asked.text
    assert "code" in redirect_parameters(for_deleted.get(authorize_url(server, prompt="none")))


def test_logout_confirmation_form_signs_out(server):
    browser = Browser(server)
    get_code(server, browser)
    confirm = browser.get(server.issuer + "/logout")
    form = forms(confirm.text)[0]
    done = browser.post(server.issuer + form["action"], dict(form["inputs"], confirm="yes"))
    assert done.status_code == 200 and "You are signed out" in done.text
    assert redirect_parameters(browser.get(authorize_url(server, prompt="none")))["error"] == "login_required"


def test_discovery_metadata_is_complete(server):
    meta = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert meta["issuer"] == server.issuer
    for key in ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri", "revocation_endpoint",
                "introspection_endpoint", "end_session_endpoint", "device_authorization_endpoint"]:
        assert meta[key].startswith(server.issuer + "/"), key
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["authorization_response_iss_parameter_supported"] is True
    assert meta["response_types_supported"] == ["code"]
    assert set(meta["grant_types_supported"]) == {"authorization_code", "refresh_token", "client_credentials",
                                                  "urn:ietf:params:oauth:grant-type:device_code",
                                                  "urn:ietf:params:oauth:grant-type:token-exchange"}
    assert meta["device_authorization_endpoint"] == server.issuer + "/device_authorization"
    assert set(meta["dpop_signing_alg_values_supported"]) == {"ES256", "EdDSA", "Ed25519", "PS256", "RS256"}
    assert set(meta["id_token_signing_alg_values_supported"]) == {"RS256", "ES256"}
    assert {"client_secret_basic", "client_secret_post"} <= set(meta["token_endpoint_auth_methods_supported"])
    jwks = requests.get(meta["jwks_uri"], timeout=10).json()
    assert {key["alg"] for key in jwks["keys"]} == {"RS256", "ES256"}
    assert all("d" not in key and "p" not in key for key in jwks["keys"])  # never private parts
    assert requests.get(server.issuer + "/health/live", timeout=10).json() == {"status": "ok"}


def test_hosted_page_renders_the_same_flow_as_the_json_api_and_does_identify_first():
    server = Server(config={"login_steps": "identify_first"})
    try:
        server.add_user("erin", PASSWORD)
        server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET, extra=["--name", "Web App"])
        browser = Browser(server)
        first = browser.get(authorize_url(server))
        assert first.status_code == 200 and 'data-node="login.identify"' in first.text
        form = forms(first.text)[0]
        assert [f.get("name") for f in form["fields"] if f.get("type") not in ("hidden",)] == ["username", "action", "action"]  # sign in, forgot password
        second = browser.post(server.issuer + form["action"], dict(form["inputs"], username="erin"))
        assert second.status_code == 200 and 'data-node="login.password"' in second.text and "erin" in second.text
        assert second.url.startswith(server.issuer + "/login?flow=")  # post/redirect/get
        form = forms(second.text)[0]
        assert [f.get("name") for f in form["fields"] if f.get("type") == "password"] == ["password"]
        wrong = browser.post(server.issuer + form["action"], dict(form["inputs"], password="not it at all"))
        assert wrong.status_code == 401 and 'id="flow-message"' in wrong.text and 'data-node="login.password"' in wrong.text
        done = browser.post(server.issuer + form["action"], dict(forms(wrong.text)[0]["inputs"], password=PASSWORD))
        assert "code" in redirect_parameters(done)
    finally:
        server.stop()


def test_hosted_flow_cannot_be_continued_through_the_json_api(server):
    browser = Browser(server)
    page = browser.get(authorize_url(server))
    flow_id = forms(page.text)[0]["inputs"]["flow"]
    for client_id in ("web", "app"):
        response = requests.post(f"{server.issuer}/flows/{flow_id}", json={"client_id": client_id, "action": "submit",
                                                                          "values": {"username": "alice", "password": PASSWORD}}, timeout=10)
        assert response.status_code == 404 and response.json()["status"] == "failure"


def test_empty_field_is_named_on_the_hosted_page(server):
    browser = Browser(server)
    page = browser.get(authorize_url(server))
    data = dict(forms(page.text)[0]["inputs"], username="alice", password="")
    response = browser.post(server.issuer + "/login", data)
    assert response.status_code == 400 and 'id="password-error"' in response.text and "Password is required." in response.text
    assert 'aria-invalid="true"' in response.text
