"""Pushed authorization requests (RFC 9126), played by a client written here from the RFC with `requests`: the
parameters posted to `/par` with the client's credentials, the browser sent with only `client_id` and the one-time
`request_uri`, the code redeemed as usual; then the refusals — a reference used twice, one past its minute, one
pushed by another client, bad credentials, a pushed `request_uri`, an unregistered redirect URI, a public client
without PKCE — and DPoP at the push endpoint binding the code (RFC 9449 §10). On PostgreSQL the push and the
browser reach different nodes."""
import time
from urllib.parse import urlencode

import pytest
import requests

from conftest import ENGINES
from gatehouse_harness import (APP_REDIRECT, DPoPHolder, PASSWORD, RFC7636_CHALLENGE, RFC7636_VERIFIER, WEB_REDIRECT, WEB_SECRET, Browser,
                               balanced_nodes, error_of, redeem, redirect_parameters, verify_id_token)

SETTINGS = {"token_lifetimes": {"pushed_request": 5}}
PREFIX = "urn:ietf:params:oauth:request_uri:"


@pytest.fixture(scope="module", params=ENGINES)
def nodes(request):
    def prepare(node):
        node.add_user("alice", PASSWORD, name="Alice Example")
        node.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
        node.add_client("app", APP_REDIRECT, public=True)
    with balanced_nodes(request.param, prepare, SETTINGS) as started:
        yield started


def push(node, auth=("web", WEB_SECRET), headers=None, **overrides):
    parameters = {"response_type": "code", "redirect_uri": WEB_REDIRECT, "scope": "openid profile", "state": "st-1",
                  "nonce": "n-1", "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    parameters.update(overrides)
    return requests.post(node.issuer + "/par", data={k: v for k, v in parameters.items() if v is not None}, auth=auth,
                         headers=headers or {}, timeout=10)


def authorize_with(node, client_id, request_uri, **extra):
    return f"{node.issuer}/authorize?" + urlencode({"client_id": client_id, "request_uri": request_uri, **extra})


def test_discovery_names_the_endpoint(nodes):
    document = requests.get(nodes[0].issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert document["pushed_authorization_request_endpoint"] == nodes[0].issuer + "/par"
    assert document["require_pushed_authorization_requests"] is False


def test_a_pushed_request_signs_in_once(nodes):
    first, last = nodes[0], nodes[-1]
    pushed = push(first)
    assert pushed.status_code == 201, pushed.text
    assert pushed.headers["Cache-Control"] == "no-store"
    answer = pushed.json()
    assert answer["request_uri"].startswith(PREFIX) and answer["expires_in"] == 5

    # The browser brings only the reference (other parameters on the URL are not used: the scope stays the pushed one).
    browser = Browser(last)
    done = browser.sign_in(authorize_with(last, "web", answer["request_uri"], scope="openid email"), "alice", PASSWORD)
    back = redirect_parameters(done)
    assert done.headers["Location"].startswith(WEB_REDIRECT)
    assert back["state"] == "st-1" and back["iss"] == first.issuer and back["code"]
    tokens = redeem(first, back["code"])
    assert tokens.status_code == 200, tokens.text
    assert tokens.json()["scope"] == "openid profile"
    claims = verify_id_token(first, tokens.json(), "web", "n-1", "RS256")
    assert claims["preferred_username"] == "alice"

    # Used once: the same reference again is an error page, never a redirect.
    again = Browser(first).get(authorize_with(first, "web", answer["request_uri"]))
    assert again.status_code == 400 and "expired or was used already" in again.text and "Location" not in again.headers


def test_references_that_are_expired_foreign_or_made_up_are_refused(nodes):
    first, last = nodes[0], nodes[-1]
    foreign = push(first).json()["request_uri"]
    for client_id, reference in [("app", foreign), ("web", PREFIX + "made-up"), ("web", "https://elsewhere")]:
        refused = Browser(last).get(authorize_with(last, client_id, reference))
        assert refused.status_code == 400 and "expired or was used already" in refused.text, (client_id, reference)
    # Another client naming the reference took nothing: the client that pushed it still can use it.
    still = Browser(first).get(authorize_with(first, "web", foreign))
    assert still.status_code == 200 and "/login?flow=" in still.url
    stale = push(first).json()["request_uri"]
    time.sleep(6)  # token_lifetimes.pushed_request is 5 seconds here
    expired = Browser(first).get(authorize_with(first, "web", stale))
    assert expired.status_code == 400 and "expired or was used already" in expired.text


def test_bad_pushes_are_json_errors(nodes):
    node = nodes[0]
    assert push(node, auth=("web", "wrong-secret")).status_code == 401
    assert error_of(push(node, auth=("nobody", "x"))) == "invalid_client"
    nested = push(node, request_uri=PREFIX + "x")
    assert nested.status_code == 400 and error_of(nested) == "invalid_request" and "request_uri" in nested.json()["error_description"]
    elsewhere = push(node, redirect_uri="https://attacker.example/cb")
    assert elsewhere.status_code == 400 and error_of(elsewhere) == "invalid_request"
    assert error_of(push(node, response_type="token")) == "unsupported_response_type"
    assert error_of(push(node, scope="openid admin")) == "invalid_scope"
    # A public client authenticates with its id only, and needs PKCE as ever.
    public = push(node, auth=None, client_id="app", redirect_uri=APP_REDIRECT, code_challenge=None, code_challenge_method=None)
    assert public.status_code == 400 and error_of(public) == "invalid_request" and "PKCE" in public.json()["error_description"]
    assert push(node, auth=None, client_id="app", redirect_uri=APP_REDIRECT).status_code == 201


def test_dpop_at_the_push_binds_the_code(nodes):
    first, last = nodes[0], nodes[-1]
    holder, other = DPoPHolder(), DPoPHolder()
    url = first.issuer + "/par"
    mismatch = push(first, auth=None, client_id="app", redirect_uri=APP_REDIRECT, dpop_jkt=other.thumbprint,
                    headers={"DPoP": holder.proof("POST", url)})
    assert mismatch.status_code == 400 and error_of(mismatch) == "invalid_dpop_proof"
    wrong_htu = push(first, auth=None, client_id="app", redirect_uri=APP_REDIRECT, headers={"DPoP": holder.proof("POST", first.issuer + "/token")})
    assert wrong_htu.status_code == 400 and error_of(wrong_htu) == "invalid_dpop_proof"

    pushed = push(first, auth=None, client_id="app", redirect_uri=APP_REDIRECT, headers={"DPoP": holder.proof("POST", url)})
    assert pushed.status_code == 201, pushed.text
    done = Browser(last).sign_in(authorize_with(last, "app", pushed.json()["request_uri"]), "alice", PASSWORD)
    code = redirect_parameters(done)["code"]
    data = {"grant_type": "authorization_code", "code": code, "client_id": "app", "redirect_uri": APP_REDIRECT,
            "code_verifier": RFC7636_VERIFIER}
    # Without the key's proof the code is refused (and spent).
    bare = requests.post(first.issuer + "/token", data=data, timeout=10)
    assert bare.status_code == 400 and error_of(bare) == "invalid_dpop_proof"

    pushed = push(first, auth=None, client_id="app", redirect_uri=APP_REDIRECT, headers={"DPoP": holder.proof("POST", url)})
    done = Browser(first).sign_in(authorize_with(first, "app", pushed.json()["request_uri"]), "alice", PASSWORD)
    data["code"] = redirect_parameters(done)["code"]
    granted = requests.post(first.issuer + "/token", data=data, headers={"DPoP": holder.proof("POST", first.issuer + "/token")}, timeout=10)
    assert granted.status_code == 200 and granted.json()["token_type"] == "DPoP", granted.text
