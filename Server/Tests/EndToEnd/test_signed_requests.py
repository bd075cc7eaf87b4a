"""Signed authorization requests (JAR, RFC 9101) by value and through PAR, and clients that must sign and push theirs.
A relying party written with joserfc (its request objects and PAR assertions) and authlib (its `private_key_jwt` at
the token endpoint, authlib's own RFC 7523 code) signs a person in through PAR; a `client_secret_jwt` client sends an
HS256 request object by value, whose parameters replace the request's own. Refused: unsigned, `alg: none`, another
key's, another audience's, expired, over-long, encrypted and nested request objects, a request object from a client
with nothing to sign with, and a client that must sign or push sending a plain request."""
import json
import time
import uuid

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc import jwk, jwt

from gatehouse_harness import (PASSWORD, RFC7636_CHALLENGE, RFC7636_VERIFIER, Browser, Server, b64url, error_of, key_set,
                               redirect_parameters)

REDIRECT = "http://127.0.0.1:9/signed"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@pytest.fixture(scope="module")
def signing(tmp_path_factory):
    server = Server()
    server.add_user("alice", PASSWORD)
    key = jwk.RSAKey.generate_key(2048, parameters={"kid": "rp-1", "alg": "RS256", "use": "sig"})
    other = jwk.RSAKey.generate_key(2048, parameters={"kid": "rp-1"})
    folder = tmp_path_factory.mktemp("signer")
    (folder / "keys.json").write_text(json.dumps({"keys": [key.as_dict(private=False)]}))
    server.cli("clients", "add", "signer", "--redirect-uri", REDIRECT, "--scope", "openid", "profile", "--auth-method", "private_key_jwt",
               "--jwks-file", str(folder / "keys.json"), "--require-signed-requests", "--require-par")
    mac = json.loads(server.cli("clients", "add", "mac-signer", "--redirect-uri", REDIRECT, "--scope", "openid", "profile", "--auth-method",
                                "client_secret_jwt", "--generate-secret", "--require-signed-requests", "--json").stdout)["client_secret"]
    plain_secret = "plain-signed-requests-secret-0123456789ab"
    server.add_client("plain", REDIRECT, secret=plain_secret)
    yield {"server": server, "key": key, "other": other, "mac": mac, "plain": plain_secret}
    server.stop()


def request_object(key, issued_by, issuer, alg="RS256", **overrides):
    now = int(time.time())
    claims = {"iss": issued_by, "aud": issuer, "client_id": issued_by, "exp": now + 300, "nbf": now, "iat": now, "jti": str(uuid.uuid4()),
              "response_type": "code", "redirect_uri": REDIRECT, "scope": "openid", "state": "from-the-object", "nonce": "n-signed",
              "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    claims.update(overrides)
    claims = {name: value for name, value in claims.items() if value is not None}
    if alg.startswith("HS"):
        return jwt.encode({"alg": alg}, claims, jwk.OctKey.import_key(key), algorithms=[alg])
    return jwt.encode({"alg": alg, "kid": "rp-1"}, claims, key, algorithms=[alg])


def assertion(key, client_id, audience):
    now = int(time.time())
    return jwt.encode({"alg": "RS256", "kid": "rp-1"}, {"iss": client_id, "sub": client_id, "aud": audience, "jti": str(uuid.uuid4()),
                                                        "exp": now + 60}, key)


def push(server, key, form):
    return requests.post(server.issuer + "/par", data={"client_id": "signer", "client_assertion_type": ASSERTION_TYPE,
                                                       "client_assertion": assertion(key, "signer", server.issuer), **form}, timeout=10)


def test_discovery_names_request_objects_and_their_algorithms(signing):
    metadata = requests.get(signing["server"].issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert metadata["request_parameter_supported"] is True and metadata["require_signed_request_object"] is False
    assert metadata["require_pushed_authorization_requests"] is False
    assert {"RS256", "PS256", "ES256", "EdDSA", "HS256"} <= set(metadata["request_object_signing_alg_values_supported"])
    assert "none" not in metadata["request_object_signing_alg_values_supported"]
    listed = {client["id"]: client for client in json.loads(signing["server"].cli("clients", "list", "--json").stdout)}
    assert listed["signer"]["require_signed_request_object"] and listed["signer"]["require_pushed_authorization_requests"]
    assert not listed["plain"]["require_signed_request_object"]


def test_an_authlib_and_joserfc_client_signs_its_request_and_pushes_it(signing):
    server, key = signing["server"], signing["key"]
    pushed = push(server, key, {"request": request_object(key, "signer", server.issuer, nonce="n-pushed")})
    assert pushed.status_code == 201, pushed.text
    browser = Browser(server)
    response = browser.sign_in(f"{server.issuer}/authorize?client_id=signer&request_uri={pushed.json()['request_uri']}", "alice", PASSWORD)
    answer = redirect_parameters(response)
    assert answer["state"] == "from-the-object" and answer["iss"] == server.issuer

    token_endpoint = server.issuer + "/token"
    session = OAuth2Session("signer", key.as_pem(private=True), token_endpoint_auth_method=PrivateKeyJWT(token_endpoint, alg="RS256"),
                            redirect_uri=REDIRECT)
    tokens = session.fetch_token(token_endpoint, code=answer["code"], code_verifier=RFC7636_VERIFIER, headers={"kid": "rp-1"})
    claims = jwt.decode(tokens["id_token"], key_set(server), algorithms=["RS256", "ES256"]).claims
    assert claims["aud"] == "signer" and claims["nonce"] == "n-pushed"


def test_a_request_object_by_value_replaces_the_requests_own_parameters(signing):
    server = signing["server"]
    signed = request_object(signing["mac"].encode(), "mac-signer", server.issuer, alg="HS256", scope="openid", state="signed-state")
    browser = Browser(server)
    # The outer state and scope are not the request's: only the object's count (RFC 9101 §5).
    url = (f"{server.issuer}/authorize?client_id=mac-signer&scope=openid+profile&state=outer-state&response_type=code"
           f"&request={signed}")
    answer = redirect_parameters(browser.sign_in(url, "alice", PASSWORD))
    assert answer["state"] == "signed-state", answer
    now = int(time.time())
    client_assertion = jwt.encode({"alg": "HS256"}, {"iss": "mac-signer", "sub": "mac-signer", "aud": server.issuer, "jti": str(uuid.uuid4()),
                                                     "exp": now + 60}, jwk.OctKey.import_key(signing["mac"].encode()))
    tokens = requests.post(server.issuer + "/token", data={
        "grant_type": "authorization_code", "code": answer["code"], "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER,
        "client_assertion_type": ASSERTION_TYPE, "client_assertion": client_assertion}, timeout=10)
    assert tokens.status_code == 200 and tokens.json()["scope"] == "openid", tokens.text


def test_bad_request_objects_and_unsigned_requests_are_refused(signing):
    server, key = signing["server"], signing["key"]
    now = int(time.time())
    header = b64url(json.dumps({"alg": "none"}).encode())
    payload = b64url(json.dumps({"iss": "signer", "aud": server.issuer, "exp": now + 60, "response_type": "code", "redirect_uri": REDIRECT,
                                 "scope": "openid"}).encode())
    for refused, words in [
        (f"{header}.{payload}.", "must be signed"),
        (request_object(signing["other"], "signer", server.issuer), "signature"),
        (request_object(key, "signer", "https://elsewhere.example"), "aud"),
        (request_object(key, "signer", server.issuer, exp=now - 10), "expired"),
        (request_object(key, "signer", server.issuer, exp=now + 7200), "an hour"),
        (request_object(key, "signer", server.issuer, iss="mac-signer"), "iss"),
        (request_object(key, "signer", server.issuer, client_id="plain"), "client_id"),
        (request_object(key, "signer", server.issuer, request_uri="https://rp.example/r"), "another request"),
        ("eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d", "Encrypted"),
        ("not a jwt", "not a JWT"),
    ]:
        answer = push(server, key, {"request": refused})
        assert answer.status_code == 400 and error_of(answer) == "invalid_request_object", (words, answer.text)
        assert words in answer.json()["error_description"], (words, answer.text)
    # A client that must sign: a plain push is refused; and it must push, so the browser cannot bring a request itself.
    plain_push = push(server, key, {"response_type": "code", "redirect_uri": REDIRECT, "scope": "openid", "code_challenge": RFC7636_CHALLENGE,
                                    "code_challenge_method": "S256"})
    assert plain_push.status_code == 400 and error_of(plain_push) == "invalid_request" and "signed" in plain_push.text
    by_browser = requests.get(server.issuer + "/authorize", params={"client_id": "signer", "request": request_object(key, "signer", server.issuer)},
                              allow_redirects=False, timeout=10)
    assert by_browser.status_code == 400 and "must push" in by_browser.text
    # A client with neither keys nor a sealed secret has nothing to sign with; the error goes to its registered redirect.
    plain = request_object(signing["plain"].encode(), "plain", server.issuer, alg="HS256")
    answer = requests.get(server.issuer + "/authorize", params={"client_id": "plain", "redirect_uri": REDIRECT, "state": "st", "request": plain},
                          allow_redirects=False, timeout=10)
    parameters = redirect_parameters(answer)
    assert parameters["error"] == "invalid_request_object" and parameters["state"] == "st" and parameters["iss"] == server.issuer
    # Without a registered redirect URI outside the object, the error is a page.
    page = requests.get(server.issuer + "/authorize", params={"client_id": "plain", "request": plain}, allow_redirects=False, timeout=10)
    assert page.status_code == 400 and "cannot sign" in page.text
    # The mac-signer must sign too: a plain request in the browser goes back with invalid_request.
    unsigned = requests.get(server.issuer + "/authorize", params={
        "client_id": "mac-signer", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid", "state": "u",
        "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}, allow_redirects=False, timeout=10)
    assert redirect_parameters(unsigned)["error"] == "invalid_request"


def test_the_server_can_require_signed_and_pushed_requests_of_every_client():
    server = Server(config={"require_signed_request_object": True, "require_pushed_authorization_requests": True})
    try:
        server.add_client("web", REDIRECT, secret="every-client-must-sign-0123456789-abcdef")
        metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
        assert metadata["require_signed_request_object"] is True and metadata["require_pushed_authorization_requests"] is True
        browser_request = requests.get(server.issuer + "/authorize", params={
            "client_id": "web", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid", "code_challenge": RFC7636_CHALLENGE,
            "code_challenge_method": "S256"}, allow_redirects=False, timeout=10)
        assert browser_request.status_code == 400 and "must push" in browser_request.text
        pushed = requests.post(server.issuer + "/par", data={
            "response_type": "code", "redirect_uri": REDIRECT, "scope": "openid", "code_challenge": RFC7636_CHALLENGE,
            "code_challenge_method": "S256"}, auth=("web", "every-client-must-sign-0123456789-abcdef"), timeout=10)
        assert pushed.status_code == 400 and error_of(pushed) == "invalid_request"
    finally:
        server.stop()
