"""Each OAuth rule fails closed, seen from outside over real HTTP."""
import json
import time

import requests

from conftest import APP_REDIRECT, PASSWORD, WEB_REDIRECT, WEB_SECRET
from gatehouse_harness import RFC7636_CHALLENGE, RFC7636_VERIFIER, authorize_url, Browser, error_of, get_code, redeem, redirect_parameters, refresh, verify_id_token


def userinfo_status(server, access_token) -> int:
    return requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {access_token}"}, timeout=10).status_code


def test_rfc7636_appendix_b_vector_is_accepted_and_a_wrong_verifier_is_not(server):
    assert redeem(server, get_code(server)).status_code == 200
    wrong = redeem(server, get_code(server), verifier="x" * 43)
    assert wrong.status_code == 400 and error_of(wrong) == "invalid_grant"


def test_code_reuse_fails_and_revokes_what_it_issued(server):
    code = get_code(server)
    first = redeem(server, code)
    assert first.status_code == 200
    tokens = first.json()
    assert userinfo_status(server, tokens["access_token"]) == 200
    second = redeem(server, code)
    assert second.status_code == 400 and error_of(second) == "invalid_grant"
    assert userinfo_status(server, tokens["access_token"]) == 401
    assert error_of(refresh(server, tokens["refresh_token"])) == "invalid_grant"


def test_refresh_reuse_revokes_the_family(server):
    tokens = redeem(server, get_code(server)).json()
    rotated = refresh(server, tokens["refresh_token"])
    assert rotated.status_code == 200
    # The answer may have been lost on its way: the same token again, within the reuse grace and before its successor
    # was used, is the client's retry and gets the same successor (and a new access token), nothing revoked.
    retried = refresh(server, tokens["refresh_token"])
    assert retried.status_code == 200 and retried.json()["refresh_token"] == rotated.json()["refresh_token"]
    assert retried.json()["access_token"] != rotated.json()["access_token"]
    newer = refresh(server, rotated.json()["refresh_token"]).json()  # the client moves on
    replay = refresh(server, tokens["refresh_token"])
    assert replay.status_code == 400 and error_of(replay) == "invalid_grant"
    # The whole family is gone: the newest refresh token and its access token too.
    assert userinfo_status(server, newer["access_token"]) == 401
    assert error_of(refresh(server, newer["refresh_token"])) == "invalid_grant"


def test_redirect_mismatch_shows_an_error_page_and_never_redirects(server):
    for uri in [WEB_REDIRECT + "/extra", "http://127.0.0.1:9/Callback", "https://evil.example/callback", None]:
        response = requests.get(authorize_url(server, redirect_uri=uri), allow_redirects=False, timeout=10)
        assert response.status_code == 400
        assert "Location" not in response.headers
        assert "text/html" in response.headers["Content-Type"]
    unknown = requests.get(authorize_url(server, client_id="nobody"), allow_redirects=False, timeout=10)
    assert unknown.status_code == 400 and "Location" not in unknown.headers


def test_public_client_without_pkce_or_with_plain_is_refused(server):
    base = {"client_id": "app", "redirect_uri": APP_REDIRECT}
    for overrides, fragment in [
        ({"code_challenge": None, "code_challenge_method": None}, "PKCE is required"),
        ({"code_challenge_method": "plain"}, "plain"),
        ({"code_challenge_method": None}, "plain"),  # absent method means plain (RFC 7636 §4.3)
    ]:
        response = requests.get(authorize_url(server, **base, **overrides), allow_redirects=False, timeout=10)
        assert response.status_code == 302
        parameters = redirect_parameters(response)
        assert parameters["error"] == "invalid_request"
        assert fragment in parameters["error_description"]
        assert parameters["state"] == "s-123" and parameters["iss"] == server.issuer


def test_pkce_is_required_unless_an_operator_exempts_a_confidential_client(server):
    # RFC 9700 §2.1.1: confidential clients need PKCE too, by default.
    refused = redirect_parameters(requests.get(authorize_url(server, code_challenge=None, code_challenge_method=None),
                                               allow_redirects=False, timeout=10))
    assert refused["error"] == "invalid_request" and "PKCE is required" in refused["error_description"]
    public = server.cli("clients", "add", "no-pkce-app", "--redirect-uri", APP_REDIRECT, "--public", "--allow-without-pkce", check=False)
    assert public.returncode != 0 and "public client always needs PKCE" in public.stderr
    server.add_client("legacy-web", WEB_REDIRECT, secret=WEB_SECRET, extra=["--allow-without-pkce"])
    listed = {client["id"]: client for client in json.loads(server.cli("clients", "list", "--json").stdout)}
    assert listed["legacy-web"]["require_pkce"] is False and listed["web"]["require_pkce"] is True
    code = get_code(server, client_id="legacy-web", code_challenge=None, code_challenge_method=None)
    assert redeem(server, code, verifier=None, auth=("legacy-web", WEB_SECRET)).status_code == 200
    # A verifier for a request that had no challenge is still refused.
    code = get_code(server, client_id="legacy-web", code_challenge=None, code_challenge_method=None)
    response = redeem(server, code, verifier=RFC7636_VERIFIER, auth=("legacy-web", WEB_SECRET))
    assert response.status_code == 400 and error_of(response) == "invalid_grant"


def test_wrong_client_secret_is_401(server):
    for auth in [("web", "wrong-secret"), ("nobody", "whatever")]:
        response = redeem(server, "some-code", auth=auth)
        assert response.status_code == 401
        assert error_of(response) == "invalid_client"
        assert response.headers["WWW-Authenticate"].startswith("Basic")
    posted = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "client_id": "web",
                                                           "client_secret": "wrong"}, timeout=10)
    assert posted.status_code == 401 and error_of(posted) == "invalid_client"
    missing = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "client_id": "web"}, timeout=10)
    assert missing.status_code == 401


def test_client_errors_do_not_tell_public_clients_from_unknown_ones(server):
    # A secret sent for the public client `app` and for a client that does not exist get the same answer.
    answers = [redeem(server, "some-code", auth=(client_id, "a-guessed-secret")) for client_id in ("app", "nobody")]
    assert [(a.status_code, a.json(), a.headers.get("WWW-Authenticate")) for a in answers] == \
        [(answers[1].status_code, answers[1].json(), answers[1].headers.get("WWW-Authenticate"))] * 2
    assert answers[0].status_code == 401


def test_expired_code_is_refused(server):
    code = get_code(server)
    time.sleep(6)  # the suite's authorization codes live 5 seconds
    response = redeem(server, code)
    assert response.status_code == 400 and error_of(response) == "invalid_grant"


def test_prompt_none_without_session_returns_login_required(server):
    response = requests.get(authorize_url(server, prompt="none"), allow_redirects=False, timeout=10)
    assert response.status_code == 302
    parameters = redirect_parameters(response)
    assert parameters["error"] == "login_required" and parameters["state"] == "s-123"


def test_sso_prompt_none_prompt_login_and_max_age(server):
    browser = Browser(server)
    first = redeem(server, get_code(server, browser)).json()
    # The session now answers prompt=none without a form.
    silent = browser.get(authorize_url(server, prompt="none"))
    assert silent.status_code == 302 and "code" in redirect_parameters(silent)
    silent_tokens = redeem(server, redirect_parameters(silent)["code"]).json()
    time.sleep(1.1)
    # prompt=login forces the form again, and auth_time moves forward.
    page = browser.get(authorize_url(server, prompt="login"))
    assert page.status_code == 200 and 'autocomplete="current-password"' in page.text
    again = browser.submit_login(page, "alice", PASSWORD)
    relogged = redeem(server, redirect_parameters(again)["code"]).json()
    first_time = verify_id_token(server, first, "web", "n-456", "RS256")["auth_time"]
    assert verify_id_token(server, silent_tokens, "web", "n-456", "RS256")["auth_time"] == first_time
    assert verify_id_token(server, relogged, "web", "n-456", "RS256")["auth_time"] > first_time
    time.sleep(1.1)
    # max_age=0 means the last sign-in is too old: the form comes back.
    aged = browser.get(authorize_url(server, max_age="0"))
    assert aged.status_code == 200 and "<form" in aged.text


def test_max_age_zero_asks_again_even_within_the_same_second(server):
    browser = Browser(server)
    assert "code" in redirect_parameters(browser.sign_in(authorize_url(server), "alice", PASSWORD))
    # Straight away, most likely in the second of the sign-in itself: whole seconds must not make it count as fresh.
    again = browser.get(authorize_url(server, max_age="0"))
    assert again.status_code == 200 and 'autocomplete="current-password"' in again.text


def test_authorization_errors_go_back_to_the_client(server):
    cases = [
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"scope": "openid admin"}, "invalid_scope"),
        ({"prompt": "none login"}, "invalid_request"),
        ({"max_age": "-1"}, "invalid_request"),
        ({"request": "eyJ..."}, "invalid_request_object"),
    ]
    for overrides, error in cases:
        response = requests.get(authorize_url(server, **overrides), allow_redirects=False, timeout=10)
        assert response.status_code == 302, overrides
        assert redirect_parameters(response)["error"] == error, overrides


def test_token_endpoint_errors(server):
    unsupported = requests.post(server.issuer + "/token", data={"grant_type": "password", "username": "alice", "password": PASSWORD},
                                auth=("web", WEB_SECRET), timeout=10)
    assert unsupported.status_code == 400 and error_of(unsupported) == "unsupported_grant_type"
    missing = requests.post(server.issuer + "/token", data={}, auth=("web", WEB_SECRET), timeout=10)
    assert missing.status_code == 400 and error_of(missing) == "invalid_request"
    duplicate = requests.post(server.issuer + "/token", data="grant_type=client_credentials&grant_type=client_credentials",
                              headers={"Content-Type": "application/x-www-form-urlencoded"}, auth=("web", WEB_SECRET), timeout=10)
    assert duplicate.status_code == 400 and error_of(duplicate) == "invalid_request"
    assert duplicate.headers["Cache-Control"] == "no-store"
    json_body = requests.post(server.issuer + "/token", json={"grant_type": "client_credentials"}, auth=("web", WEB_SECRET), timeout=10)
    assert json_body.status_code == 415 and error_of(json_body) == "invalid_request"
    redirect_mismatch = redeem(server, get_code(server), redirect_uri=WEB_REDIRECT + "x")
    assert error_of(redirect_mismatch) == "invalid_grant"


def test_post_authorize_and_post_userinfo(server):
    browser = Browser(server)
    page = browser.post(server.issuer + "/authorize", {
        "response_type": "code", "client_id": "web", "redirect_uri": WEB_REDIRECT, "scope": "openid email",
        "state": "posted", "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"})
    assert page.status_code == 200 and "<form" in page.text
    response = browser.submit_login(page, "alice", PASSWORD)
    parameters = redirect_parameters(response)
    assert parameters["state"] == "posted"
    tokens = redeem(server, parameters["code"]).json()
    posted = requests.post(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    assert posted.status_code == 200 and posted.json()["email"] == "alice@example.com"
    in_body = requests.post(server.issuer + "/userinfo", data={"access_token": tokens["access_token"]}, timeout=10)
    assert in_body.status_code == 200
    assert "name" not in in_body.json()  # no profile scope
    none = requests.get(server.issuer + "/userinfo", timeout=10)
    assert none.status_code == 401 and none.headers["WWW-Authenticate"].startswith("Bearer")


def test_trace_is_not_allowed_anywhere(server):
    """RFC 9110 §15.5.6: a method no route takes is 405 with Allow (TRACE was 404), and TRACE never echoes the request."""
    for path in ("/", "/token", "/authorize", "/no-such-page"):
        answer = requests.request("TRACE", server.issuer + path, headers={"Cookie": "gatehouse_session=secret"}, timeout=10)
        assert answer.status_code == 405 and "GET" in answer.headers["Allow"] and "secret" not in answer.text, (path, answer.status_code)
