"""The claims relying parties ask for (OpenID Connect Core §5.4, §5.5): the `phone` and `address` scopes served from
the person's profile at userinfo; the `claims` request parameter putting named claims in the ID token or the userinfo
answer (also through PAR, and still after a refresh), its `acr` wish acting as `acr_values`; `at_hash` in ID tokens,
checked against the access token with hashlib; a malformed `claims` refused at the client's redirect URI with
RFC 9207's `iss`. ID tokens are verified with joserfc. On both engines."""
import base64
import hashlib
import json

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from conftest import ENGINES
from gatehouse_harness import PASSWORD, RFC7636_VERIFIER, Browser, Server, authorize_url, fresh_postgres_database, redirect_parameters

REDIRECT = "http://127.0.0.1:9/claims"
SECRET = "claims-client-secret-0123456789-abcdefgh"
ADDRESS = {"street_address": "1 Harbour Street\nFlat 2", "locality": "Springfield", "postal_code": "12345", "country": "DE"}
PASSWORD_ACR = "urn:gatehouse:acr:password"


@pytest.fixture(scope="module", params=ENGINES)
def claims_server(request):
    if request.param == "postgres":
        server = Server(database_url=fresh_postgres_database(), owns_database=True)
    else:
        server = Server()
    server.add_user("alice", PASSWORD, name="Alice Example")
    server.add_client("rp", REDIRECT, secret=SECRET, extra=["--scope", "openid", "profile", "email", "phone", "address", "offline_access"])
    server.add_client("ops", REDIRECT, secret=SECRET, extra=["--scope", "gatehouse:admin"])
    admin = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"}, auth=("ops", SECRET),
                          timeout=10).json()["access_token"]
    headers = {"Authorization": f"Bearer {admin}"}
    [alice] = [user for user in requests.get(server.issuer + "/admin/v1/users", headers=headers, timeout=10).json()["items"]
               if user["username"] == "alice"]
    shown = requests.get(f"{server.issuer}/admin/v1/users/{alice['id']}", headers=headers, timeout=10)
    changed = requests.patch(f"{server.issuer}/admin/v1/users/{alice['id']}", headers={**headers, "If-Match": shown.headers["ETag"]},
                             json={"phone_number": "+49 30 1234567", "phone_number_verified": True, "address": ADDRESS}, timeout=10)
    assert changed.status_code == 200 and changed.json()["address"] == ADDRESS, changed.text
    refused = requests.patch(f"{server.issuer}/admin/v1/users/{alice['id']}", headers={**headers, "If-Match": "*"},
                             json={"address": {"locality": "Spring\u0007field"}}, timeout=10)
    assert refused.status_code == 400 and "address.locality" in refused.json()["detail"], refused.text
    yield server
    server.stop()


def tokens_for(server, **parameters):
    browser = Browser(server)
    response = browser.sign_in(authorize_url(server, client_id="rp", redirect_uri=REDIRECT, **parameters), "alice", PASSWORD)
    code = redirect_parameters(response)["code"]
    answer = requests.post(server.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                                          "code_verifier": RFC7636_VERIFIER}, auth=("rp", SECRET), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def id_token_claims(server, tokens):
    keys = KeySet.import_key_set(requests.get(server.issuer + "/jwks", timeout=10).json())
    return jwt.decode(tokens["id_token"], keys, algorithms=["RS256", "ES256"]).claims


def userinfo(server, tokens):
    answer = requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def at_hash(access_token):
    return base64.urlsafe_b64encode(hashlib.sha256(access_token.encode()).digest()[:16]).rstrip(b"=").decode()


def test_discovery_offers_the_claims_parameter_and_the_address_scope(claims_server):
    metadata = requests.get(claims_server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["claims_parameter_supported"] is True
    assert {"address", "phone"} <= set(metadata["scopes_supported"])
    assert {"address", "phone_number", "phone_number_verified", "sid"} <= set(metadata["claims_supported"])


def test_phone_and_address_scopes_come_from_the_profile_at_userinfo(claims_server):
    tokens = tokens_for(claims_server, scope="openid phone address")
    info = userinfo(claims_server, tokens)
    assert info["address"] == ADDRESS and info["phone_number"] == "+49301234567" and info["phone_number_verified"] is True
    assert "email" not in info and "name" not in info
    claims = id_token_claims(claims_server, tokens)
    assert "address" not in claims and "phone_number" not in claims, "scope claims go to userinfo, not the ID token"
    assert claims["at_hash"] == at_hash(tokens["access_token"])


def test_claims_named_in_the_request_go_where_asked_and_survive_a_refresh(claims_server):
    requested = {"id_token": {"email": {"essential": True}, "address": None, "acr": {"essential": True, "values": [PASSWORD_ACR]},
                              "birthdate": None},
                 "userinfo": {"phone_number": None, "favourite_colour": {"essential": False}}}
    tokens = tokens_for(claims_server, scope="openid offline_access", claims=json.dumps(requested))
    claims = id_token_claims(claims_server, tokens)
    assert claims["email"] == "alice@example.com" and claims["address"] == ADDRESS and claims["acr"] == PASSWORD_ACR
    assert "birthdate" not in claims and "phone_number" not in claims
    info = userinfo(claims_server, tokens)
    assert info["phone_number"] == "+49301234567" and "email" not in info and "favourite_colour" not in info and "address" not in info

    refreshed = requests.post(claims_server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                              auth=("rp", SECRET), timeout=10).json()
    again = id_token_claims(claims_server, refreshed)
    assert again["email"] == "alice@example.com" and again["address"] == ADDRESS and again["at_hash"] == at_hash(refreshed["access_token"])
    assert userinfo(claims_server, refreshed)["phone_number"] == "+49301234567"


def test_claims_travel_through_par(claims_server):
    pushed = requests.post(claims_server.issuer + "/par", data={
        "response_type": "code", "client_id": "rp", "redirect_uri": REDIRECT, "scope": "openid", "code_challenge_method": "S256",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "claims": json.dumps({"userinfo": {"address": None}})},
        auth=("rp", SECRET), timeout=10)
    assert pushed.status_code == 201, pushed.text
    browser = Browser(claims_server)
    response = browser.sign_in(f"{claims_server.issuer}/authorize?client_id=rp&request_uri={pushed.json()['request_uri']}", "alice", PASSWORD)
    code = redirect_parameters(response)["code"]
    tokens = requests.post(claims_server.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                                                 "code_verifier": RFC7636_VERIFIER}, auth=("rp", SECRET), timeout=10).json()
    assert userinfo(claims_server, tokens)["address"] == ADDRESS


@pytest.mark.parametrize("claims", ["not json", "[]", json.dumps({"id_token": ["email"]}), json.dumps({"userinfo": {"email": 1}}),
                                    json.dumps({"id_token": {"email": {"essential": "yes"}}}), json.dumps({"userinfo": {"x" * 5000: None}})])
def test_a_malformed_claims_parameter_is_refused_at_the_redirect_uri_with_iss(claims_server, claims):
    answer = requests.get(authorize_url(claims_server, client_id="rp", redirect_uri=REDIRECT, scope="openid", claims=claims),
                          allow_redirects=False, timeout=10)
    assert answer.status_code in (302, 303), answer.text
    parameters = redirect_parameters(answer)
    assert parameters["error"] == "invalid_request" and "claims" in parameters["error_description"]
    assert parameters["iss"] == claims_server.issuer and parameters["state"] == "s-123"
