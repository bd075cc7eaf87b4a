"""An independent port of the OpenID Foundation's conformance checks for an OpenID provider, plan by plan: Basic OP
(the code flow with `client_secret_basic`), Config OP (discovery and keys), Dynamic OP (clients that register
themselves), RP-Initiated Logout OP, Back-Channel Logout OP, Front-Channel Logout OP, and the FAPI 2.0 Security
Profile plan's server-side checks (`private_key_jwt` and DPoP, on a server that holds every client to FAPI 2.0). Each test is named after the suite's module (`oidcc-…`) and makes the
requests that module makes, then checks what it checks, with joserfc validating every JWT against the published
keys; where the suite only warns (a claim a scope should bring), the port fails, so no warning is left either.
Written from the suite's published module descriptions, not its code."""
import base64
import hashlib
import http.server
import json
import threading
import time
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from gatehouse_harness import PASSWORD, RFC7636_CHALLENGE, RFC7636_VERIFIER, Browser, Server, error_of, forms, redirect_parameters

SECRET = "certification-client-secret-0123456789-ab"
REDIRECT = "https://rp.certification.example/callback"
POST_LOGOUT = "https://rp.certification.example/logged-out"
ADDRESS = {"formatted": "1 Conformance Way\nSuite 2\nSpringfield 12345\nDE", "street_address": "1 Conformance Way\nSuite 2",
           "locality": "Springfield", "postal_code": "12345", "country": "DE"}
BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"


class LogoutReceiver:
    """The relying party's back-channel logout endpoint (records each `logout_token`) and its front-channel page."""

    def __init__(self):
        receiver = self
        self.tokens: list[str] = []
        self.lock = threading.Lock()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
                with receiver.lock:
                    receiver.tokens.append(form.get("logout_token", [""])[0])
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def token_for(self, sid: str, timeout: float = 15) -> str:
        """The logout token about the session `sid` (earlier tests' sessions end too), unverified until the caller checks it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for token in self.tokens:
                    payload = token.split(".")[1]
                    if json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get("sid") == sid:
                        return token
            time.sleep(0.1)
        raise AssertionError(f"no logout token arrived for the session {sid}")


@pytest.fixture(scope="module")
def op():
    receiver = LogoutReceiver()
    server = Server(config={"backchannel_logout": {"retry_delay": 1, "max_attempts": 2}, "token_lifetimes": {"authorization_code": 60}})
    server.add_user("alice", PASSWORD, name="Alice Conformance")
    server.add_client("rp", REDIRECT, secret=SECRET, extra=[
        "--scope", "openid", "profile", "email", "phone", "address", "offline_access", "--post-logout-redirect-uri", POST_LOGOUT,
        "--post-logout-redirect-uri", POST_LOGOUT + "?tenant=one", "--backchannel-logout-uri", receiver.url + "/backchannel",
        "--frontchannel-logout-uri", receiver.url + "/frontchannel"])
    server.add_client("ops", REDIRECT, secret=SECRET, extra=["--scope", "gatehouse:admin"])
    admin = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"}, auth=("ops", SECRET),
                          timeout=10).json()["access_token"]
    headers = {"Authorization": f"Bearer {admin}"}
    [alice] = [user for user in requests.get(server.issuer + "/admin/v1/users", headers=headers, timeout=10).json()["items"]
               if user["username"] == "alice"]
    answer = requests.patch(f"{server.issuer}/admin/v1/users/{alice['id']}", headers={**headers, "If-Match": "*"}, json={
        "given_name": "Alice", "family_name": "Conformance", "email_verified": True, "phone_number": "+49 30 901820",
        "phone_number_verified": True, "address": ADDRESS}, timeout=10)
    assert answer.status_code == 200, answer.text
    yield server, receiver
    receiver.httpd.shutdown()
    server.stop()


# The conformance suite's client: its requests, and its checks of what comes back.

def authorization_url(server, **overrides):
    parameters = {"response_type": "code", "client_id": "rp", "redirect_uri": REDIRECT, "scope": "openid", "state": "st-" + str(time.monotonic_ns()),
                  "nonce": "nn-" + str(time.monotonic_ns()), "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    parameters.update(overrides)
    return server.issuer + "/authorize?" + urlencode({k: v for k, v in parameters.items() if v is not None})


def authorize(server, browser, **overrides):
    """The browser at the authorization endpoint, signing in when asked; the parameters sent back to the client."""
    url = authorization_url(server, **overrides)
    response = browser.get(url)
    if "Location" not in response.headers:
        response = browser.submit_login(response, "alice", PASSWORD)
    answer = redirect_parameters(response)
    sent = parse_qs(urlparse(url).query)
    assert answer["iss"] == server.issuer, "RFC 9207: every authorization response names the issuer"
    if "state" in sent:
        assert answer.get("state") == sent["state"][0]
    return answer


def token_request(server, code, auth="basic", **extra):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER, **extra}
    if auth == "basic":
        return requests.post(server.issuer + "/token", data=form, auth=("rp", SECRET), timeout=10)
    return requests.post(server.issuer + "/token", data={**form, "client_id": "rp", "client_secret": SECRET}, timeout=10)


def keys(server):
    return KeySet.import_key_set(requests.get(server.issuer + "/jwks", timeout=10).json())


def validate_id_token(server, tokens, nonce=None):
    """ValidateIdToken, CheckForSubjectInIdToken, ValidateIdTokenSignature, ValidateAtHash… as the suite does."""
    token = jwt.decode(tokens["id_token"], keys(server), algorithms=["RS256"])
    claims = token.claims
    now = time.time()
    assert token.header["alg"] == "RS256" and token.header.get("kid")
    assert claims["iss"] == server.issuer and claims["aud"] in ("rp", ["rp"]) and claims["sub"]
    assert claims["exp"] > now and claims["iat"] <= now + 5 and claims["auth_time"] <= now + 5
    assert claims.get("nonce") == nonce
    if "at_hash" in claims:
        digest = hashlib.sha256(tokens["access_token"].encode()).digest()[:16]
        assert claims["at_hash"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return claims


def sign_in_and_redeem(server, browser=None, auth="basic", **overrides):
    browser = browser or Browser(server)
    url_nonce = overrides.get("nonce", "nn-flow")
    answer = authorize(server, browser, nonce=url_nonce, **{k: v for k, v in overrides.items() if k != "nonce"})
    tokens = token_request(server, answer["code"], auth=auth)
    assert tokens.status_code == 200 and tokens.headers["Cache-Control"] == "no-store", tokens.text
    assert tokens.json()["token_type"] == "Bearer"
    return tokens.json(), validate_id_token(server, tokens.json(), nonce=url_nonce)


def userinfo(server, tokens, how="get"):
    token = tokens["access_token"]
    if how == "get":
        answer = requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    elif how == "post-header":
        answer = requests.post(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    else:
        answer = requests.post(server.issuer + "/userinfo", data={"access_token": token}, timeout=10)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/json"), answer.text
    return answer.json()


# Basic OP.

def test_oidcc_server(op):
    server, _ = op
    tokens, claims = sign_in_and_redeem(server)
    assert userinfo(server, tokens)["sub"] == claims["sub"]


def test_oidcc_response_type_missing(op):
    server, _ = op
    answer = requests.get(authorization_url(server, response_type=None), allow_redirects=False, timeout=10)
    assert redirect_parameters(answer)["error"] == "invalid_request"


@pytest.mark.parametrize("how", ["get", "post-header", "post-body"])
def test_oidcc_userinfo(op, how):
    server, _ = op
    tokens, claims = sign_in_and_redeem(server)
    assert userinfo(server, tokens, how)["sub"] == claims["sub"]


def test_oidcc_ensure_request_without_nonce_succeeds_for_code_flow(op):
    server, _ = op
    answer = authorize(server, Browser(server), nonce=None)
    tokens = token_request(server, answer["code"])
    assert tokens.status_code == 200
    assert "nonce" not in validate_id_token(server, tokens.json())


@pytest.mark.parametrize("scope,expected", [
    ("openid profile", ["name", "given_name", "family_name", "preferred_username", "updated_at"]),
    ("openid email", ["email", "email_verified"]),
    ("openid address", ["address"]),
    ("openid phone", ["phone_number", "phone_number_verified"]),
    ("openid profile email address phone", ["name", "email", "address", "phone_number"]),
])
def test_oidcc_scope(op, scope, expected):
    """oidcc-scope-profile, -email, -address, -phone and -all: each scope's claims at userinfo (the suite warns when
    one is missing; here that fails)."""
    server, _ = op
    tokens, _ = sign_in_and_redeem(server, scope=scope)
    info = userinfo(server, tokens)
    for claim in expected:
        assert claim in info, (scope, claim, info)
    if "address" in expected:
        assert info["address"]["formatted"] == ADDRESS["formatted"]


def test_oidcc_ensure_other_scope_order_succeeds(op):
    server, _ = op
    tokens, _ = sign_in_and_redeem(server, scope="email openid")
    assert "email" in userinfo(server, tokens)


@pytest.mark.parametrize("parameter", [{"display": "page"}, {"display": "popup"}, {"login_hint": "alice"}, {"ui_locales": "de en"},
                                       {"claims_locales": "de"}, {"extra_parameter": "ignored"}, {"acr_values": "1 2"}])
def test_oidcc_accepted_parameters(op, parameter):
    """oidcc-display-page, -display-popup, -login-hint, -ui-locales, -claims-locales,
    -ensure-request-with-unknown-parameter-succeeds, -ensure-request-with-acr-values-succeeds."""
    server, _ = op
    sign_in_and_redeem(server, **parameter)


def test_oidcc_prompt_login(op):
    server, _ = op
    browser = Browser(server)
    _, first = sign_in_and_redeem(server, browser)
    time.sleep(1.1)
    page = browser.get(authorization_url(server, prompt="login"))
    assert "Location" not in page.headers, "prompt=login asks to sign in again"
    answer = redirect_parameters(browser.submit_login(page, "alice", PASSWORD))
    tokens = token_request(server, answer["code"]).json()
    second = jwt.decode(tokens["id_token"], keys(server), algorithms=["RS256"]).claims
    assert second["auth_time"] > first["auth_time"] and second["sub"] == first["sub"]


def test_oidcc_prompt_none_not_logged_in(op):
    server, _ = op
    answer = redirect_parameters(requests.get(authorization_url(server, prompt="none"), allow_redirects=False, timeout=10))
    assert answer["error"] == "login_required" and answer["iss"] == server.issuer


def test_oidcc_prompt_none_logged_in(op):
    server, _ = op
    browser = Browser(server)
    _, first = sign_in_and_redeem(server, browser)
    answer = authorize(server, browser, prompt="none")
    tokens = token_request(server, answer["code"]).json()
    assert jwt.decode(tokens["id_token"], keys(server), algorithms=["RS256"]).claims["sub"] == first["sub"]


def test_oidcc_max_age_1(op):
    server, _ = op
    browser = Browser(server)
    _, first = sign_in_and_redeem(server, browser)
    time.sleep(2.1)  # whole seconds on both sides: more than one second has passed however the clock ticks
    page = browser.get(authorization_url(server, max_age="1"))
    assert "Location" not in page.headers, "max_age=1 after more than a second asks to sign in again"
    answer = redirect_parameters(browser.submit_login(page, "alice", PASSWORD))
    claims = jwt.decode(token_request(server, answer["code"]).json()["id_token"], keys(server), algorithms=["RS256"]).claims
    assert claims["auth_time"] > first["auth_time"]


def test_oidcc_max_age_10000(op):
    server, _ = op
    browser = Browser(server)
    _, first = sign_in_and_redeem(server, browser)
    answer = authorize(server, browser, max_age="10000")
    claims = jwt.decode(token_request(server, answer["code"]).json()["id_token"], keys(server), algorithms=["RS256"]).claims
    assert claims["auth_time"] == first["auth_time"]


def test_oidcc_id_token_hint(op):
    server, _ = op
    browser = Browser(server)
    tokens, first = sign_in_and_redeem(server, browser)
    answer = authorize(server, browser, prompt="none", id_token_hint=tokens["id_token"])
    claims = jwt.decode(token_request(server, answer["code"]).json()["id_token"], keys(server), algorithms=["RS256"]).claims
    assert claims["sub"] == first["sub"]


@pytest.mark.parametrize("wait", [0, 2])
def test_oidcc_codereuse(op, wait):
    """oidcc-codereuse and oidcc-codereuse-30seconds (here two seconds): the second use fails, and the suite then expects
    the access token of the first use to be revoked."""
    server, _ = op
    answer = authorize(server, Browser(server))
    first = token_request(server, answer["code"])
    assert first.status_code == 200
    time.sleep(wait)
    second = token_request(server, answer["code"])
    assert second.status_code == 400 and error_of(second) == "invalid_grant"
    revoked = requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {first.json()['access_token']}"}, timeout=10)
    assert revoked.status_code == 401


def test_oidcc_ensure_registered_redirect_uri(op):
    server, _ = op
    answer = requests.get(authorization_url(server, redirect_uri="https://attacker.example/cb"), allow_redirects=False, timeout=10)
    assert answer.status_code == 400 and "Location" not in answer.headers, "an unregistered redirect URI is never redirected to"


def test_oidcc_server_client_secret_post(op):
    server, _ = op
    sign_in_and_redeem(server, auth="post")


def test_oidcc_unsigned_request_object_supported_correctly_or_rejected_as_unsupported(op):
    server, _ = op
    header = base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode()
    payload = base64.urlsafe_b64encode(json.dumps({"iss": "rp", "aud": server.issuer, "response_type": "code", "client_id": "rp",
                                                   "redirect_uri": REDIRECT, "scope": "openid", "exp": int(time.time()) + 60}).encode())
    request_object = f"{header}.{payload.rstrip(b'=').decode()}."
    answer = redirect_parameters(requests.get(authorization_url(server, request=request_object), allow_redirects=False, timeout=10))
    assert answer["error"] in ("request_not_supported", "invalid_request_object")


def test_oidcc_claims_essential(op):
    server, _ = op
    tokens, _ = sign_in_and_redeem(server, claims=json.dumps({"userinfo": {"name": {"essential": True}}}))
    assert userinfo(server, tokens)["name"] == "Alice Conformance"


def test_oidcc_refresh_token(op):
    server, _ = op
    tokens, first = sign_in_and_redeem(server, scope="openid offline_access")
    refreshed = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                              auth=("rp", SECRET), timeout=10)
    assert refreshed.status_code == 200, refreshed.text
    claims = jwt.decode(refreshed.json()["id_token"], keys(server), algorithms=["RS256"]).claims
    assert claims["iss"] == first["iss"] and claims["sub"] == first["sub"] and claims["aud"] == first["aud"]
    assert claims["auth_time"] == first["auth_time"]
    # Rotated: once the new refresh token is used, the first one is refused (a retry moments after its use, while
    # the answer may have been lost, gets that same answer again: the reuse grace).
    again = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": refreshed.json()["refresh_token"]},
                          auth=("rp", SECRET), timeout=10)
    assert again.status_code == 200
    reused = requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                           auth=("rp", SECRET), timeout=10)
    assert reused.status_code == 400 and error_of(reused) == "invalid_grant"


def test_oidcc_ensure_post_request_succeeds(op):
    server, _ = op
    browser = Browser(server)
    parameters = parse_qs(urlparse(authorization_url(server)).query)
    page = browser.post(server.issuer + "/authorize", {name: values[0] for name, values in parameters.items()})
    answer = redirect_parameters(browser.submit_login(page, "alice", PASSWORD))
    assert token_request(server, answer["code"]).status_code == 200


# Config OP.

def test_oidcc_discovery_endpoint_verification(op):
    server, _ = op
    answer = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10)
    assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("application/json")
    metadata = answer.json()
    assert metadata["issuer"] == server.issuer
    for member in ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"]:
        assert metadata[member].startswith(server.issuer + "/"), member
    assert "code" in metadata["response_types_supported"] and "public" in metadata["subject_types_supported"]
    assert "RS256" in metadata["id_token_signing_alg_values_supported"] and "none" not in metadata["id_token_signing_alg_values_supported"]
    assert "openid" in metadata["scopes_supported"] and "client_secret_basic" in metadata["token_endpoint_auth_methods_supported"]
    assert {"sub", "iss", "auth_time", "acr", "name", "email", "address", "phone_number"} <= set(metadata["claims_supported"])
    assert set(metadata["grant_types_supported"]) >= {"authorization_code", "refresh_token"}
    assert metadata["claims_parameter_supported"] is True and metadata["request_parameter_supported"] is True
    assert metadata["authorization_response_iss_parameter_supported"] is True


def test_oidcc_jwks_are_public_unique_and_usable(op):
    """The Config plan's key checks: every key public, kids unique, each usable for its algorithm."""
    server, _ = op
    document = requests.get(server.issuer + "/jwks", timeout=10).json()
    kids = [key["kid"] for key in document["keys"]]
    assert len(kids) == len(set(kids)) and any(key["kty"] == "RSA" for key in document["keys"])
    for key in document["keys"]:
        assert not {"d", "p", "q", "dp", "dq", "qi", "k"} & set(key), "no private key material"
        assert key.get("use", "sig") == "sig"
    KeySet.import_key_set(document)


# RP-Initiated Logout OP.

def end_session(server, browser, **parameters):
    return browser.session.get(server.issuer + "/logout", params=parameters, allow_redirects=False, timeout=10)


def signed_in(server):
    browser = Browser(server)
    tokens, claims = sign_in_and_redeem(server, browser)
    return browser, tokens, claims


def test_oidcc_rp_initiated_logout(op):
    server, _ = op
    browser, tokens, _ = signed_in(server)
    answer = end_session(server, browser, id_token_hint=tokens["id_token"], post_logout_redirect_uri=POST_LOGOUT, state="lo-1")
    # With front-channel logout registered, the signed-out page frames the client's page, then goes on by itself.
    assert answer.status_code == 200 and f"{POST_LOGOUT}?state=lo-1" in answer.text
    page = browser.get(authorization_url(server, prompt="none"))
    assert redirect_parameters(page)["error"] == "login_required", "the session ended"


def test_oidcc_rp_initiated_logout_query_added_to_post_logout_redirect_uri(op):
    server, _ = op
    browser, tokens, _ = signed_in(server)
    answer = end_session(server, browser, id_token_hint=tokens["id_token"], post_logout_redirect_uri=POST_LOGOUT + "?tenant=one", state="q")
    assert f"{POST_LOGOUT}?tenant=one&amp;state=q" in answer.text


@pytest.mark.parametrize("case", ["bad-id-token-hint", "modified-id-token-hint", "bad-post-logout-redirect-uri", "no-id-token-hint",
                                  "no-params", "only-state", "no-post-logout-redirect-uri", "no-state"])
def test_oidcc_rp_initiated_logout_cases(op, case):
    server, _ = op
    browser, tokens, _ = signed_in(server)
    hint = tokens["id_token"]
    if case == "bad-id-token-hint":
        answer = end_session(server, browser, id_token_hint="not.a.token", post_logout_redirect_uri=POST_LOGOUT)
        assert answer.status_code == 400 and "Location" not in answer.headers
    elif case == "modified-id-token-hint":
        header, payload, signature = hint.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        claims["sub"] = "someone-else"
        forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        answer = end_session(server, browser, id_token_hint=f"{header}.{forged}.{signature}", post_logout_redirect_uri=POST_LOGOUT)
        assert answer.status_code == 400 and "Location" not in answer.headers
    elif case == "bad-post-logout-redirect-uri":
        answer = end_session(server, browser, id_token_hint=hint, post_logout_redirect_uri="https://attacker.example/")
        assert answer.status_code == 400 and "Location" not in answer.headers
    elif case in ("no-id-token-hint", "no-params", "only-state"):
        parameters = {"state": "s"} if case == "only-state" else {}
        if case == "no-id-token-hint":
            parameters = {"client_id": "rp", "post_logout_redirect_uri": POST_LOGOUT}
        answer = end_session(server, browser, **parameters)
        # Without a hint the person confirms: a page with a form, and the session still there until they do.
        assert answer.status_code == 200 and any(form["inputs"].get("confirm") == "yes" or "csrf_token" in form["inputs"]
                                                 for form in forms(answer.text))
        assert "code" in redirect_parameters(browser.get(authorization_url(server, prompt="none")))
    elif case == "no-post-logout-redirect-uri":
        answer = end_session(server, browser, id_token_hint=hint)
        assert answer.status_code == 200 and "signed out" in answer.text.lower()
    else:  # no-state
        answer = end_session(server, browser, id_token_hint=hint, post_logout_redirect_uri=POST_LOGOUT)
        assert f'url={POST_LOGOUT}"' in answer.text or f"href=\"{POST_LOGOUT}\"" in answer.text


# Back-Channel Logout OP.

def test_oidcc_backchannel_rp_initiated_logout(op):
    server, receiver = op
    browser, tokens, claims = signed_in(server)
    end_session(server, browser, id_token_hint=tokens["id_token"], post_logout_redirect_uri=POST_LOGOUT)
    logout = jwt.decode(receiver.token_for(claims["sid"]), keys(server), algorithms=["RS256"])
    body = logout.claims
    assert logout.header["typ"] == "logout+jwt"
    assert body["iss"] == server.issuer and body["aud"] in ("rp", ["rp"]) and body["sub"] == claims["sub"] and body["sid"] == claims["sid"]
    assert BACKCHANNEL_EVENT in body["events"] and body["events"][BACKCHANNEL_EVENT] == {} and "nonce" not in body
    assert body["jti"] and body["iat"] <= time.time() + 5 and body["exp"] > time.time()


def test_oidcc_backchannel_logout_session_in_discovery(op):
    server, _ = op
    metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["backchannel_logout_supported"] and metadata["backchannel_logout_session_supported"]
    assert metadata["end_session_endpoint"] == server.issuer + "/logout"


# Front-Channel Logout OP.

def test_oidcc_frontchannel_rp_initiated_logout(op):
    server, receiver = op
    browser, tokens, claims = signed_in(server)
    answer = end_session(server, browser, id_token_hint=tokens["id_token"], post_logout_redirect_uri=POST_LOGOUT, state="fc")
    expected = f"{receiver.url}/frontchannel?iss={requests.utils.quote(server.issuer, safe='')}&amp;sid={claims['sid']}"
    assert f'<iframe class="logout-frame" src="{expected}"' in answer.text, answer.text
    metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["frontchannel_logout_supported"] and metadata["frontchannel_logout_session_supported"]


# Dynamic OP: clients that register themselves (the suite registers a fresh client for each module).

@pytest.fixture(scope="module")
def dynamic_op():
    server = Server(config={"dynamic_registration": {"enabled": True, "open": False}})
    server.add_user("alice", PASSWORD, name="Alice Conformance")
    token = json.loads(server.cli("registration-tokens", "create", "conformance", "--json").stdout)["token"]
    server.add_client("ops", REDIRECT, secret=SECRET, extra=["--scope", "gatehouse:admin"])
    yield server, token
    server.stop()


def register(server, token, **metadata):
    body = {"redirect_uris": [REDIRECT], "client_name": "Conformance RP", **metadata}
    return requests.post(server.issuer + "/register", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def dynamic_flow(server, client, redirect_uri=REDIRECT, **overrides):
    browser = Browser(server)
    page = browser.sign_in(authorization_url(server, client_id=client["client_id"], redirect_uri=redirect_uri, **overrides), "alice", PASSWORD)
    # A registered client is a third party: the person allows it first.
    if "Location" not in page.headers:
        form = forms(page.text)[0]
        page = browser.post(server.issuer + form["action"] if form["action"].startswith("/") else form["action"],
                            {**form["inputs"], "action": "submit"})
    answer = redirect_parameters(page)
    assert answer["iss"] == server.issuer and "code" in answer, answer
    tokens = requests.post(server.issuer + "/token", data={"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": redirect_uri,
                                                          "code_verifier": RFC7636_VERIFIER}, auth=(client["client_id"], client["client_secret"]),
                           timeout=10)
    assert tokens.status_code == 200, tokens.text
    return tokens.json()


def test_oidcc_dynamic_server(dynamic_op):
    """oidcc-server with a client registered on the spot: the registration answers RFC 7591's members."""
    server, token = dynamic_op
    metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["registration_endpoint"] == server.issuer + "/register"
    answer = register(server, token)
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store", answer.text
    client = answer.json()
    assert client["client_id"] and client["client_secret"] and client["registration_access_token"] and client["registration_client_uri"]
    assert client["redirect_uris"] == [REDIRECT] and client["token_endpoint_auth_method"] == "client_secret_basic"
    tokens = dynamic_flow(server, client, nonce="dyn")
    claims = jwt.decode(tokens["id_token"], keys(server), algorithms=["RS256"]).claims
    assert claims["aud"] == client["client_id"] and claims["nonce"] == "dyn"


@pytest.mark.parametrize("member", ["logo_uri", "policy_uri", "tos_uri"])
def test_oidcc_registration_pages(dynamic_op, member):
    """oidcc-registration-logo-uri, -policy-uri, -tos-uri: registered, answered back, and the client signs in."""
    server, token = dynamic_op
    answer = register(server, token, **{member: "https://rp.certification.example/" + member})
    assert answer.status_code == 201 and answer.json()[member] == "https://rp.certification.example/" + member
    dynamic_flow(server, answer.json())


def test_oidcc_redirect_uri_regfrag(dynamic_op):
    server, token = dynamic_op
    answer = register(server, token, redirect_uris=[REDIRECT + "#fragment"])
    assert answer.status_code == 400 and error_of(answer) == "invalid_redirect_uri"


def test_oidcc_redirect_uri_query(dynamic_op):
    """oidcc-redirect-uri-query-OK, -query-mismatch and -query-added: a registered query must come back exactly."""
    server, token = dynamic_op
    with_query = REDIRECT + "?foo=bar"
    client = register(server, token, redirect_uris=[with_query]).json()
    dynamic_flow(server, client, redirect_uri=with_query)
    for wrong in [REDIRECT + "?foo=baz", REDIRECT + "?foo=bar&extra=1", REDIRECT]:
        answer = requests.get(authorization_url(server, client_id=client["client_id"], redirect_uri=wrong), allow_redirects=False, timeout=10)
        assert answer.status_code == 400 and "Location" not in answer.headers, wrong


def test_oidcc_server_rotate_keys(dynamic_op):
    """oidcc-server-rotate-keys: after the operator rotates the keys, ID tokens carry the new kid, found in the JWKS."""
    server, token = dynamic_op
    client = register(server, token).json()
    before = jwt.decode(dynamic_flow(server, client)["id_token"], keys(server), algorithms=["RS256"]).header["kid"]
    admin = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"}, auth=("ops", SECRET),
                          timeout=10).json()["access_token"]
    rotated = requests.post(server.issuer + "/admin/v1/keys/rotate", headers={"Authorization": f"Bearer {admin}"}, timeout=30)
    assert rotated.status_code == 200, rotated.text
    # The node that rotated signs with the new key at once; the old one stays published for tokens it signed.
    after = jwt.decode(dynamic_flow(server, client)["id_token"], keys(server), algorithms=["RS256"]).header["kid"]
    published = {key["kid"] for key in requests.get(server.issuer + "/jwks", timeout=10).json()["keys"]}
    assert after != before and {before, after} <= published


# FAPI 2.0 Security Profile (final), the server-side checks, with private_key_jwt and DPoP, on a server that holds
# every client to it.

FAPI_REDIRECT = "https://fapi.certification.example/callback"


@pytest.fixture(scope="module")
def fapi_op(tmp_path_factory):
    from joserfc import jwk as joserfc_jwk
    server = Server(config={"fapi2": True, "token_lifetimes": {"authorization_code": 60, "pushed_request": 5}})
    server.add_user("alice", PASSWORD)
    clients = {}
    for name in ["fapi-1", "fapi-2"]:
        key = joserfc_jwk.ECKey.generate_key("P-256", parameters={"kid": name + "-key"})
        path = tmp_path_factory.mktemp(name) / "keys.json"
        path.write_text(json.dumps({"keys": [key.as_dict(private=False)]}))
        server.cli("clients", "add", name, "--auth-method", "private_key_jwt", "--jwks-file", str(path), "--id-token-alg", "ES256",
                   "--redirect-uri", FAPI_REDIRECT, "--scope", "openid", "offline_access")
        clients[name] = key
    yield server, clients
    server.stop()


def fapi_assertion(key, client_id, audience, **overrides):
    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "jti": str(time.monotonic_ns()), "iat": now, "exp": now + 60, **overrides}
    claims = {name: value for name, value in claims.items() if value is not None}
    return jwt.encode({"alg": "ES256", "kid": client_id + "-key"}, claims, key)


def par(server, key, client_id="fapi-1", holder=None, assertion=None, **overrides):
    form = {"client_id": client_id, "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion or fapi_assertion(key, client_id, server.issuer), "response_type": "code",
            "redirect_uri": FAPI_REDIRECT, "scope": "openid offline_access", "state": "fapi-state", "nonce": "fapi-nonce",
            "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256", **overrides}
    headers = {"DPoP": holder.proof("POST", server.issuer + "/par")} if holder else {}
    return requests.post(server.issuer + "/par", data={k: v for k, v in form.items() if v is not None}, headers=headers, timeout=10)


def fapi_code(server, key, client_id="fapi-1", holder=None):
    pushed = par(server, key, client_id, holder)
    assert pushed.status_code == 201, pushed.text
    browser = Browser(server)
    answer = redirect_parameters(browser.sign_in(f"{server.issuer}/authorize?client_id={client_id}&request_uri={pushed.json()['request_uri']}",
                                                 "alice", PASSWORD))
    assert answer["iss"] == server.issuer and answer["state"] == "fapi-state"
    return answer["code"], pushed.json()["request_uri"]


def fapi_token(server, key, code, holder, client_id="fapi-1", **overrides):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": FAPI_REDIRECT, "code_verifier": RFC7636_VERIFIER,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": fapi_assertion(key, client_id, server.issuer), **overrides}
    headers = {"DPoP": holder.proof("POST", server.issuer + "/token")} if holder else {}
    return requests.post(server.issuer + "/token", data={k: v for k, v in form.items() if v is not None}, headers=headers, timeout=10)


def test_fapi2_discovery_end_point_verification(fapi_op):
    server, _ = fapi_op
    metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["pushed_authorization_request_endpoint"] == server.issuer + "/par" and metadata["require_pushed_authorization_requests"]
    assert metadata["token_endpoint_auth_methods_supported"] == ["private_key_jwt"]
    assert set(metadata["token_endpoint_auth_signing_alg_values_supported"]) <= {"PS256", "ES256", "EdDSA"}
    assert set(metadata["dpop_signing_alg_values_supported"]) <= {"PS256", "ES256", "EdDSA", "Ed25519"}
    assert metadata["authorization_response_iss_parameter_supported"] is True and metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["response_types_supported"] == ["code"] and "token" not in metadata["response_types_supported"]


def test_fapi2_happy_flow(fapi_op):
    from gatehouse_harness import DPoPHolder
    server, clients = fapi_op
    holder = DPoPHolder("ES256")
    code, _ = fapi_code(server, clients["fapi-1"], holder=holder)
    tokens = fapi_token(server, clients["fapi-1"], code, holder)
    assert tokens.status_code == 200 and tokens.json()["token_type"] == "DPoP", tokens.text
    claims = jwt.decode(tokens.json()["id_token"], keys(server), algorithms=["ES256"]).claims
    assert claims["aud"] == "fapi-1" and claims["nonce"] == "fapi-nonce"
    access = tokens.json()["access_token"]
    bound = requests.get(server.issuer + "/userinfo", headers={"Authorization": f"DPoP {access}",
                                                               "DPoP": holder.proof("GET", server.issuer + "/userinfo", access_token=access)}, timeout=10)
    assert bound.status_code == 200
    as_bearer = requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {access}"}, timeout=10)
    assert as_bearer.status_code == 401, "a DPoP-bound token is no bearer token"
    refreshed = requests.post(server.issuer + "/token", data={
        "grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"],
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": fapi_assertion(clients["fapi-1"], "fapi-1", server.issuer)},
        headers={"DPoP": holder.proof("POST", server.issuer + "/token")}, timeout=10)
    assert refreshed.status_code == 200 and refreshed.json()["token_type"] == "DPoP"


def test_fapi2_ensure_authorization_request_without_par_fails(fapi_op):
    server, _ = fapi_op
    answer = requests.get(server.issuer + "/authorize", params={
        "client_id": "fapi-1", "response_type": "code", "redirect_uri": FAPI_REDIRECT, "scope": "openid", "code_challenge": RFC7636_CHALLENGE,
        "code_challenge_method": "S256"}, allow_redirects=False, timeout=10)
    assert answer.status_code == 400 and "Location" not in answer.headers


def test_fapi2_par_attempt_reuse_request_uri_and_expired_request_uri(fapi_op):
    server, clients = fapi_op
    _, request_uri = fapi_code(server, clients["fapi-1"])
    reused = requests.get(f"{server.issuer}/authorize?client_id=fapi-1&request_uri={request_uri}", allow_redirects=False, timeout=10)
    assert reused.status_code == 400 and "Location" not in reused.headers
    pushed = par(server, clients["fapi-1"])
    time.sleep(6)  # token_lifetimes.pushed_request is 5 seconds here
    expired = requests.get(f"{server.issuer}/authorize?client_id=fapi-1&request_uri={pushed.json()['request_uri']}", allow_redirects=False,
                           timeout=10)
    assert expired.status_code == 400 and "Location" not in expired.headers


@pytest.mark.parametrize("change,error", [
    ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
    ({"code_challenge_method": "plain", "code_challenge": RFC7636_VERIFIER}, "invalid_request"),
    ({"response_type": "code id_token"}, "unsupported_response_type"),
    ({"redirect_uri": None}, "invalid_request"),
    ({"redirect_uri": "https://attacker.example/cb"}, "invalid_request"),
])
def test_fapi2_par_refuses_bad_requests(fapi_op, change, error):
    """fapi2-par-without-pkce, -plain-pkce, -ensure-response-type-code-idtoken-fails,
    -ensure-redirect-uri-in-authorization-request, -ensure-registered-redirect-uri."""
    server, clients = fapi_op
    answer = par(server, clients["fapi-1"], **change)
    assert answer.status_code == 400 and error_of(answer) == error, answer.text


@pytest.mark.parametrize("case", ["wrong-aud", "expired", "no-exp", "reused-jti", "other-client-key", "rs256"])
def test_fapi2_ensure_client_assertion_checks(fapi_op, case):
    """fapi2-ensure-client-assertion-with-wrong-aud-fails, -expired-fails, -no-exp-fails, -reused-jti, a key of another
    client, and RS256 (not a FAPI 2.0 algorithm)."""
    from joserfc import jwk as joserfc_jwk
    server, clients = fapi_op
    key = clients["fapi-1"]
    if case == "wrong-aud":
        assertion = fapi_assertion(key, "fapi-1", "https://elsewhere.example")
    elif case == "expired":
        assertion = fapi_assertion(key, "fapi-1", server.issuer, exp=int(time.time()) - 10)
    elif case == "no-exp":
        assertion = fapi_assertion(key, "fapi-1", server.issuer, exp=None)
    elif case == "reused-jti":
        assertion = fapi_assertion(key, "fapi-1", server.issuer)
        assert par(server, key, assertion=assertion).status_code == 201
    elif case == "other-client-key":
        assertion = jwt.encode({"alg": "ES256", "kid": "fapi-1-key"}, {"iss": "fapi-1", "sub": "fapi-1", "aud": server.issuer, "jti": "x-1",
                                                                       "exp": int(time.time()) + 60}, clients["fapi-2"])
    else:
        rsa = joserfc_jwk.RSAKey.generate_key(2048)
        assertion = jwt.encode({"alg": "RS256", "kid": "fapi-1-key"}, {"iss": "fapi-1", "sub": "fapi-1", "aud": server.issuer, "jti": "x-2",
                                                                       "exp": int(time.time()) + 60}, rsa)
    answer = par(server, key, assertion=assertion)
    assert answer.status_code == 401 and error_of(answer) == "invalid_client", answer.text


def test_fapi2_ensure_token_endpoint_requires_dpop_and_the_right_client(fapi_op):
    from gatehouse_harness import DPoPHolder
    server, clients = fapi_op
    holder = DPoPHolder("ES256")
    code, _ = fapi_code(server, clients["fapi-1"], holder=holder)
    without = fapi_token(server, clients["fapi-1"], code, None)
    assert without.status_code == 400 and error_of(without) == "invalid_dpop_proof"
    other_key = fapi_token(server, clients["fapi-1"], code, DPoPHolder("ES256"))
    assert other_key.status_code == 400, "the code is bound to the DPoP key the PAR request proved"
    other_client = fapi_token(server, clients["fapi-2"], code, holder, client_id="fapi-2")
    assert other_client.status_code == 400 and error_of(other_client) == "invalid_grant", "fapi2-ensure-authorization-code-is-bound-to-client"
    wrong_verifier = fapi_token(server, clients["fapi-1"], code, holder, code_verifier="x" * 43)
    assert wrong_verifier.status_code == 400 and error_of(wrong_verifier) == "invalid_grant"


def test_fapi2_attempt_reuse_authorization_code(fapi_op):
    from gatehouse_harness import DPoPHolder
    server, clients = fapi_op
    holder = DPoPHolder("ES256")
    code, _ = fapi_code(server, clients["fapi-1"], holder=holder)
    first = fapi_token(server, clients["fapi-1"], code, holder)
    assert first.status_code == 200
    second = fapi_token(server, clients["fapi-1"], code, holder)
    assert second.status_code == 400 and error_of(second) == "invalid_grant"
    access = first.json()["access_token"]
    revoked = requests.get(server.issuer + "/userinfo", headers={
        "Authorization": f"DPoP {access}", "DPoP": holder.proof("GET", server.issuer + "/userinfo", access_token=access)}, timeout=10)
    assert revoked.status_code == 401


@pytest.mark.parametrize("case", ["wrong-htm", "wrong-htu", "old-iat", "none-alg"])
def test_fapi2_dpop_negative_tests(fapi_op, case):
    from gatehouse_harness import DPoPHolder
    server, clients = fapi_op
    holder = DPoPHolder("ES256")
    code, _ = fapi_code(server, clients["fapi-1"], holder=holder)
    url = server.issuer + "/token"
    proof = {
        "wrong-htm": lambda: holder.proof("GET", url),
        "wrong-htu": lambda: holder.proof("POST", server.issuer + "/elsewhere"),
        "old-iat": lambda: holder.proof("POST", url, claims={"iat": int(time.time()) - 3600}),
        "none-alg": lambda: ".".join([base64.urlsafe_b64encode(json.dumps({"typ": "dpop+jwt", "alg": "none",
                                                                           "jwk": holder.key.as_dict(private=False)}).encode()).rstrip(b"=").decode(),
                                      base64.urlsafe_b64encode(json.dumps({"jti": "n", "htm": "POST", "htu": url,
                                                                           "iat": int(time.time())}).encode()).rstrip(b"=").decode(), ""]),
    }[case]()
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": FAPI_REDIRECT, "code_verifier": RFC7636_VERIFIER,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": fapi_assertion(clients["fapi-1"], "fapi-1", server.issuer)}
    answer = requests.post(url, data=form, headers={"DPoP": proof}, timeout=10)
    assert answer.status_code == 400 and error_of(answer) == "invalid_dpop_proof", answer.text
