"""The FAPI 2.0 Security Profile, per client (`--profile fapi2`) and server-wide (`fapi2: true`). A FAPI client
authenticates with `private_key_jwt` (PS256, ES256 or EdDSA; RS256 refused), pushes every request (PAR) with PKCE,
gets DPoP-bound tokens only, ES256 ID tokens, and has https redirect URIs; registration refuses what cannot follow the
profile. Server-wide, discovery offers only what FAPI 2.0 allows, and a server refuses to start while a client is
outside the profile. The relying party's assertions, DPoP proofs and checks are joserfc's."""
import json
import os
import subprocess
import time
import uuid

import pytest
import requests
from joserfc import jwk, jwt

from gatehouse_harness import (PASSWORD, RFC7636_CHALLENGE, RFC7636_VERIFIER, Browser, DPoPHolder, Server, binary, error_of, key_set,
                               redirect_parameters)

REDIRECT = "https://bank.example/cb"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    server = Server()
    server.add_user("alice", PASSWORD)
    ec = jwk.ECKey.generate_key("P-256", parameters={"kid": "ec-1", "use": "sig"})
    rsa = jwk.RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "use": "sig"})
    folder = tmp_path_factory.mktemp("bank")
    keys = folder / "keys.json"
    keys.write_text(json.dumps({"keys": [ec.as_dict(private=False), rsa.as_dict(private=False)]}))
    server.cli("clients", "add", "bank", "--profile", "fapi2", "--auth-method", "private_key_jwt", "--jwks-file", str(keys), "--id-token-alg",
               "ES256", "--redirect-uri", REDIRECT, "--scope", "openid", "offline_access")
    yield {"server": server, "ec": ec, "rsa": rsa, "keys": keys}
    server.stop()


def assertion(key, audience, alg="ES256", kid="ec-1"):
    now = int(time.time())
    return jwt.encode({"alg": alg, "kid": kid}, {"iss": "bank", "sub": "bank", "aud": audience, "jti": str(uuid.uuid4()), "exp": now + 60},
                      key, algorithms=[alg])


def pushed_code(server, key, holder=None):
    """A code for `bank` through PAR (the DPoP proof there binds the code) and a browser sign-in."""
    headers = {"DPoP": holder.proof("POST", server.issuer + "/par")} if holder else {}
    pushed = requests.post(server.issuer + "/par", data={
        "client_id": "bank", "client_assertion_type": ASSERTION_TYPE, "client_assertion": assertion(key, server.issuer),
        "response_type": "code", "redirect_uri": REDIRECT, "scope": "openid offline_access", "state": "fapi", "nonce": "n-fapi",
        "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}, headers=headers, timeout=10)
    assert pushed.status_code == 201, pushed.text
    browser = Browser(server)
    answer = redirect_parameters(browser.sign_in(f"{server.issuer}/authorize?client_id=bank&request_uri={pushed.json()['request_uri']}",
                                                 "alice", PASSWORD))
    assert answer["iss"] == server.issuer and answer["state"] == "fapi"
    return answer["code"]


def redeem(server, code, client_assertion, holder=None):
    headers = {"DPoP": holder.proof("POST", server.issuer + "/token")} if holder else {}
    return requests.post(server.issuer + "/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER,
        "client_assertion_type": ASSERTION_TYPE, "client_assertion": client_assertion}, headers=headers, timeout=10)


def test_a_fapi_client_gets_dpop_bound_tokens_through_par_with_private_key_jwt(bank):
    server, ec = bank["server"], bank["ec"]
    listed = {client["id"]: client for client in json.loads(server.cli("clients", "list", "--json").stdout)}
    assert listed["bank"]["profile"] == "fapi2" and listed["bank"]["require_dpop"] and listed["bank"]["require_pushed_authorization_requests"]
    holder = DPoPHolder("ES256")
    code = pushed_code(server, ec, holder)
    # Without a DPoP proof: refused, the code stays unspent.
    bearer = redeem(server, code, assertion(ec, server.issuer))
    assert bearer.status_code == 400 and error_of(bearer) == "invalid_dpop_proof", bearer.text
    # RS256 is not a FAPI 2.0 algorithm, even with a registered RSA key; PS256 with the same key is.
    rs256 = redeem(server, code, assertion(bank["rsa"], server.issuer, alg="RS256", kid="rsa-1"), holder)
    assert rs256.status_code == 401 and error_of(rs256) == "invalid_client"
    tokens = redeem(server, code, assertion(bank["rsa"], server.issuer, alg="PS256", kid="rsa-1"), holder)
    assert tokens.status_code == 200 and tokens.json()["token_type"] == "DPoP", tokens.text
    decoded = jwt.decode(tokens.json()["id_token"], key_set(server), algorithms=["ES256"])
    assert decoded.header["alg"] == "ES256" and decoded.claims["nonce"] == "n-fapi"
    userinfo = requests.get(server.issuer + "/userinfo", headers={
        "Authorization": f"DPoP {tokens.json()['access_token']}",
        "DPoP": holder.proof("GET", server.issuer + "/userinfo", access_token=tokens.json()["access_token"])}, timeout=10)
    assert userinfo.status_code == 200
    # The refresh token is bound to the client's authentication and needs DPoP too.
    refresh = requests.post(server.issuer + "/token", data={
        "grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"], "client_assertion_type": ASSERTION_TYPE,
        "client_assertion": assertion(ec, server.issuer)}, timeout=10)
    assert refresh.status_code == 400 and error_of(refresh) == "invalid_dpop_proof"


def test_a_fapi_client_cannot_skip_par(bank):
    server = bank["server"]
    answer = requests.get(server.issuer + "/authorize", params={
        "client_id": "bank", "redirect_uri": REDIRECT, "response_type": "code", "scope": "openid", "code_challenge": RFC7636_CHALLENGE,
        "code_challenge_method": "S256"}, allow_redirects=False, timeout=10)
    assert answer.status_code == 400 and "must push" in answer.text


def test_registration_refuses_what_cannot_follow_the_profile(bank):
    server, keys = bank["server"], str(bank["keys"])
    for extra, words in [
        (["--auth-method", "private_key_jwt", "--jwks-file", keys, "--id-token-alg", "RS256", "--redirect-uri", REDIRECT],
         "PS256, ES256 or EdDSA, never RS256"),
        (["--auth-method", "private_key_jwt", "--jwks-file", keys, "--id-token-alg", "ES256", "--redirect-uri", "http://127.0.0.1:9/cb"], "https"),
        (["--generate-secret", "--id-token-alg", "ES256", "--redirect-uri", REDIRECT], "private_key_jwt"),
    ]:
        refused = server.cli("clients", "add", "not-fapi", "--profile", "fapi2", *extra, check=False)
        assert refused.returncode != 0 and words in refused.stderr, refused.stderr
    assert "not-fapi" not in server.cli("clients", "list").stdout
    # Without --id-token-alg the profile chooses an algorithm it allows, instead of refusing the default.
    chosen = server.cli("clients", "add", "fapi-default", "--profile", "fapi2", "--auth-method", "private_key_jwt", "--jwks-file", keys,
                        "--redirect-uri", REDIRECT, check=False)
    assert chosen.returncode == 0, chosen.stderr
    listed = {client["id"]: client for client in json.loads(server.cli("clients", "list", "--json").stdout)}
    assert listed["fapi-default"]["id_token_signed_response_alg"] == "ES256"


def test_a_server_that_holds_every_client_to_fapi2(tmp_path):
    key = jwk.ECKey.generate_key("P-256", parameters={"kid": "ec-1"})
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [key.as_dict(private=False)]}))
    server = Server(config={"fapi2": True})
    try:
        metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
        assert metadata["token_endpoint_auth_methods_supported"] == ["private_key_jwt"]
        assert set(metadata["token_endpoint_auth_signing_alg_values_supported"]) == {"PS256", "ES256", "EdDSA"}
        assert metadata["require_pushed_authorization_requests"] is True and metadata["id_token_signing_alg_values_supported"] == ["ES256"]
        assert "RS256" not in metadata["dpop_signing_alg_values_supported"]
        refused = server.cli("clients", "add", "web", "--generate-secret", "--redirect-uri", REDIRECT, check=False)
        assert refused.returncode != 0 and "private_key_jwt" in refused.stderr
        server.cli("clients", "add", "bank", "--auth-method", "private_key_jwt", "--jwks-file", str(keys), "--id-token-alg", "ES256",
                   "--redirect-uri", REDIRECT)
        listed = {client["id"]: client for client in json.loads(server.cli("clients", "list", "--json").stdout)}
        assert listed["bank"]["profile"] == "fapi2" and listed["bank"]["require_dpop"]
    finally:
        server.stop()

    # A client registered before the server held every client to FAPI 2.0 stops the start, named.
    plain = Server()
    try:
        plain.add_client("legacy", REDIRECT, secret="legacy-client-secret-0123456789-abcdefgh")
        with plain.stopped():
            original = open(plain.config_path).read()
            open(plain.config_path, "w").write(json.dumps({**json.loads(original), "fapi2": True}))
            started = subprocess.run([binary(), "serve", "--config", plain.config_path, "--database", plain.database, "--port", "0"],
                                     capture_output=True, text=True, timeout=60, env=dict(os.environ))
            open(plain.config_path, "w").write(original)
        assert started.returncode != 0 and "legacy" in started.stderr and "fapi2" in started.stderr, started.stderr
    finally:
        plain.stop()
