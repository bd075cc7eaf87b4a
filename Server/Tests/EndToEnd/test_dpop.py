"""DPoP (RFC 9449) against a live server, with proofs made by joserfc (authlib's JOSE library), an implementation
independent of Gatehouse's: tokens bound to the proof's key on every grant, a bound token useless without its key,
and each check of §4.3 refused with the right error — replayed jti, wrong htm or htu, stale iat, a private key in
the header, alg none, HS256, another key's proof, no proof — plus the nonce flow and a client that requires DPoP.
On PostgreSQL a second node shares the database: a proof replayed to it is refused too."""
import json
import time
import uuid

import http.client
from urllib.parse import urlencode, urlparse

import pytest
import requests
from joserfc import jwk

from conftest import ENGINES
from gatehouse_harness import (APP_REDIRECT, DPOP_ALGORITHMS, PASSWORD, WEB_SECRET, DPoPHolder, Server, b64url, balanced_nodes, error_of,
                               start, submit)

# joserfc warns that RFC 9864 deprecates "EdDSA" for "Ed25519"; the server accepts both.
pytestmark = pytest.mark.filterwarnings("ignore:EdDSA is deprecated")
def unsigned(protected: dict, claims: dict, signature: bytes = b"") -> str:
    return ".".join([b64url(json.dumps(protected).encode()), b64url(json.dumps(claims).encode()), b64url(signature)])


@pytest.fixture(scope="module", params=ENGINES)
def nodes(request):
    def prepare(node):
        node.add_user("alice", PASSWORD, name="Alice Example")
        node.add_client("app", APP_REDIRECT, public=True)
        node.add_client("svc", "http://127.0.0.1:9/unused", secret=WEB_SECRET, extra=["--scope", "openid", "profile"])
        node.add_client("strict", "http://127.0.0.1:9/unused", secret=WEB_SECRET, extra=["--require-dpop"])
        node.add_client("ops", "http://127.0.0.1:9/unused", secret=WEB_SECRET, extra=["--scope", "gatehouse:admin"])
    with balanced_nodes(request.param, prepare) as started:
        yield started


def app_code(node):
    flow = start(node).json()
    done = submit(node, flow["flow_id"], {"username": "alice", "password": PASSWORD}).json()
    return done["authorization"]["code"]


def token_request(node, data, proof=None, auth=None):
    headers = {"DPoP": proof} if proof else {}
    return requests.post(node.issuer + "/token", data=data, headers=headers, auth=auth, timeout=10)


def bound_tokens(node, holder):
    data = {"grant_type": "authorization_code", "code": app_code(node), "client_id": "app", "redirect_uri": APP_REDIRECT,
            "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}
    response = token_request(node, data, holder.proof("POST", node.issuer + "/token"))
    assert response.status_code == 200, response.text
    return response.json()


def userinfo(node, token, proof=None, scheme="DPoP"):
    headers = {"Authorization": f"{scheme} {token}"}
    if proof:
        headers["DPoP"] = proof
    return requests.get(node.issuer + "/userinfo", headers=headers, timeout=10)


@pytest.mark.parametrize("algorithm", DPOP_ALGORITHMS)
def test_every_allowed_algorithm_binds_the_tokens_and_userinfo_needs_the_key(nodes, algorithm):
    node, other = nodes[0], nodes[-1]
    discovery = requests.get(node.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert sorted(discovery["dpop_signing_alg_values_supported"]) == sorted(DPOP_ALGORITHMS)
    holder = DPoPHolder(algorithm)
    tokens = bound_tokens(node, holder)
    assert tokens["token_type"] == "DPoP" and tokens["refresh_token"]

    # Introspection names the key by joserfc's RFC 7638 thumbprint.
    introspected = requests.post(node.issuer + "/introspect", data={"token": tokens["access_token"]}, auth=("svc", WEB_SECRET),
                                 timeout=10)
    # svc may not introspect app's token: it is another client's; the token's client sees it.
    assert introspected.json() == {"active": False}

    url = node.issuer + "/userinfo"  # the issuer both nodes serve
    answer = userinfo(other, tokens["access_token"], holder.proof("GET", url, tokens["access_token"]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["preferred_username"] == "alice"
    # Without its key the token is nothing: as a bearer token, without a proof, or with another key's proof.
    as_bearer = userinfo(other, tokens["access_token"], scheme="Bearer")
    assert as_bearer.status_code == 401 and error_of(as_bearer) == "invalid_token"
    assert as_bearer.headers["WWW-Authenticate"].startswith("DPoP ") and 'algs="' in as_bearer.headers["WWW-Authenticate"]
    no_proof = userinfo(other, tokens["access_token"])
    assert no_proof.status_code == 401 and error_of(no_proof) == "invalid_dpop_proof"
    thief = DPoPHolder("ES256")
    stolen = userinfo(other, tokens["access_token"], thief.proof("GET", url, tokens["access_token"]))
    assert stolen.status_code == 401 and error_of(stolen) == "invalid_dpop_proof"
    assert 'error="invalid_dpop_proof"' in stolen.headers["WWW-Authenticate"]

    # The public client's refresh token is bound too: refused without the key or with another, rotated with it.
    refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": "app"}
    assert error_of(token_request(node, refresh)) == "invalid_grant"
    assert error_of(token_request(node, refresh, thief.proof("POST", node.issuer + "/token"))) == "invalid_grant"
    rotated = token_request(other, refresh, holder.proof("POST", node.issuer + "/token"))
    assert rotated.status_code == 200 and rotated.json()["token_type"] == "DPoP", rotated.text


def test_the_admin_api_takes_a_bound_token_only_with_a_proof_of_its_key(nodes):
    """The most privileged API checks the binding as userinfo does: a stolen bound admin token is useless alone."""
    node, other = nodes[0], nodes[-1]
    holder = DPoPHolder()
    granted = token_request(node, {"grant_type": "client_credentials", "scope": "gatehouse:admin"}, holder.proof("POST", node.issuer + "/token"),
                            auth=("ops", WEB_SECRET))
    assert granted.status_code == 200 and granted.json()["token_type"] == "DPoP", granted.text
    access = granted.json()["access_token"]
    url = node.issuer + "/admin/v1/users"

    def admin(scheme, proof=None):
        headers = {"Authorization": f"{scheme} {access}"}
        if proof:
            headers["DPoP"] = proof
        return requests.get(other.issuer + "/admin/v1/users", headers=headers, timeout=10)

    as_bearer = admin("Bearer")
    assert as_bearer.status_code == 401 and as_bearer.headers["Content-Type"] == "application/problem+json", as_bearer.text
    assert as_bearer.headers["WWW-Authenticate"].startswith("DPoP ") and 'error="invalid_token"' in as_bearer.headers["WWW-Authenticate"]
    assert "bound to a DPoP key" in as_bearer.json()["detail"]
    assert admin("DPoP").status_code == 401  # no proof
    stolen = admin("DPoP", DPoPHolder().proof("GET", url, access))
    assert stolen.status_code == 401 and 'error="invalid_dpop_proof"' in stolen.headers["WWW-Authenticate"]
    assert admin("DPoP", holder.proof("GET", url)).status_code == 401  # a proof without ath names no token
    assert admin("DPoP", holder.proof("POST", url, access)).status_code == 401  # another method
    proof = holder.proof("GET", url, access)
    answered = admin("DPoP", proof)
    assert answered.status_code == 200, answered.text
    assert admin("DPoP", proof).status_code == 401  # the same proof twice: a replay, on either node
    # An unbound admin token is a bearer token only.
    plain = requests.post(node.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"}, auth=("ops", WEB_SECRET),
                          timeout=10).json()["access_token"]
    assert requests.get(url, headers={"Authorization": f"Bearer {plain}"}, timeout=10).status_code == 200
    as_dpop = requests.get(url, headers={"Authorization": f"DPoP {plain}", "DPoP": holder.proof("GET", url, plain)}, timeout=10)
    assert as_dpop.status_code == 401 and "not bound" in as_dpop.json()["detail"]


def test_each_check_of_the_proof_refuses_with_invalid_dpop_proof(nodes):
    node, other = nodes[0], nodes[-1]
    holder = DPoPHolder()
    token_url = node.issuer + "/token"

    def refused(proof, expected="invalid_dpop_proof", to=node):
        response = token_request(to, {"grant_type": "client_credentials"}, proof, auth=("svc", WEB_SECRET))
        assert response.status_code == 400 and error_of(response) == expected, response.text
        return response.json()["error_description"]

    # A good proof works once; the same proof again is a replay, on this node and on any other.
    proof = holder.proof("POST", token_url)
    first = token_request(node, {"grant_type": "client_credentials"}, proof, auth=("svc", WEB_SECRET))
    assert first.status_code == 200 and first.json()["token_type"] == "DPoP", first.text
    assert "used before" in refused(proof)
    assert "used before" in refused(proof, to=other)

    assert "htm" in refused(holder.proof("GET", token_url))
    assert "htu" in refused(holder.proof("POST", node.issuer + "/userinfo"))
    assert "htu" in refused(holder.proof("POST", "https://evil.example/token"))
    # The query is not part of htu; scheme and host compare case-insensitively (RFC 3986 §6).
    assert token_request(node, {"grant_type": "client_credentials"}, holder.proof("POST", token_url.replace("http://", "HTTP://")),
                         auth=("svc", WEB_SECRET)).status_code == 200
    assert "iat" in refused(holder.proof("POST", token_url, claims={"iat": int(time.time()) - 300}))
    assert "iat" in refused(holder.proof("POST", token_url, claims={"iat": int(time.time()) + 300}))
    assert "jti" in refused(holder.proof("POST", token_url, claims={"jti": ""}))
    assert "typ" in refused(holder.proof("POST", token_url, header={"typ": "JWT"}))
    private = holder.key.as_dict(private=True)
    assert "private" in refused(holder.proof("POST", token_url, header={"jwk": private}))
    claims = {"jti": str(uuid.uuid4()), "htm": "POST", "htu": token_url, "iat": int(time.time())}
    assert "alg" in refused(unsigned({"typ": "dpop+jwt", "alg": "none", "jwk": holder.key.as_dict(private=False)}, claims))
    secret = jwk.OctKey.generate_key(256)
    hs256 = holder.proof("POST", token_url, algorithm="HS256", key=secret, header={"jwk": secret.as_dict(private=False)})
    assert "alg" in refused(hs256)
    # Signed by another key than the one in the header.
    assert "signature" in refused(holder.proof("POST", token_url, key=DPoPHolder().key))
    assert "not a signed JWT" in refused("not-a-jwt")
    # Two DPoP headers (requests cannot send a header twice; http.client can).
    connection = http.client.HTTPConnection(urlparse(node.issuer).hostname, urlparse(node.issuer).port, timeout=10)
    connection.putrequest("POST", "/token")
    for _ in range(2):
        connection.putheader("DPoP", holder.proof("POST", token_url))
    body = urlencode({"grant_type": "client_credentials", "client_id": "svc", "client_secret": WEB_SECRET}).encode()
    connection.putheader("Content-Type", "application/x-www-form-urlencoded")
    connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    two = connection.getresponse()
    assert two.status == 400 and json.loads(two.read())["error"] == "invalid_dpop_proof"
    connection.close()


def test_a_code_bound_by_dpop_jkt_goes_only_to_a_proof_by_that_key(nodes):
    """RFC 9449 §10: the authorization request names the key's thumbprint; the code it ends with is redeemed only with
    a proof by that key — another key's proof or none is refused, and the code is spent either way."""
    first, last = nodes[0], nodes[-1]
    holder, thief = DPoPHolder(), DPoPHolder()
    data = {"grant_type": "authorization_code", "client_id": "app", "redirect_uri": APP_REDIRECT,
            "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}

    def bound_code():
        flow = start(first, dpop_jkt=holder.thumbprint).json()
        return submit(first, flow["flow_id"], {"username": "alice", "password": PASSWORD}).json()["authorization"]["code"]

    code = bound_code()
    url = first.issuer + "/token"  # the issuer both nodes serve, which proofs name
    stolen = token_request(last, {**data, "code": code}, thief.proof("POST", url))
    assert stolen.status_code == 400 and error_of(stolen) == "invalid_dpop_proof", stolen.text
    late = token_request(first, {**data, "code": code}, holder.proof("POST", url))
    assert late.status_code == 400 and error_of(late) == "invalid_grant"
    bare = token_request(first, {**data, "code": bound_code()})
    assert bare.status_code == 400 and error_of(bare) == "invalid_dpop_proof" and "dpop_jkt" in bare.json()["error_description"]

    granted = token_request(last, {**data, "code": bound_code()}, holder.proof("POST", url))
    assert granted.status_code == 200 and granted.json()["token_type"] == "DPoP", granted.text
    token = granted.json()["access_token"]
    answer = userinfo(first, token, holder.proof("GET", first.issuer + "/userinfo", token))
    assert answer.status_code == 200 and answer.json()["preferred_username"] == "alice"

    # A dpop_jkt that is not a SHA-256 thumbprint is refused before anything else.
    malformed = start(first, dpop_jkt="not-a-thumbprint")
    assert malformed.status_code == 400 and error_of(malformed) == "invalid_request" and "dpop_jkt" in malformed.text
    query = urlencode({"response_type": "code", "client_id": "app", "redirect_uri": APP_REDIRECT, "scope": "openid",
                       "state": "s", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                       "code_challenge_method": "S256", "dpop_jkt": "x" * 10})
    redirected = requests.get(f"{first.issuer}/authorize?{query}", allow_redirects=False, timeout=10)
    assert redirected.status_code in (302, 303) and "error=invalid_request" in redirected.headers["Location"]


def test_a_client_that_requires_dpop_gets_no_token_without_a_proof(nodes):
    node = nodes[0]
    without = token_request(node, {"grant_type": "client_credentials"}, auth=("strict", WEB_SECRET))
    assert without.status_code == 400 and error_of(without) == "invalid_dpop_proof"
    holder = DPoPHolder("EdDSA")
    bound = token_request(node, {"grant_type": "client_credentials"}, holder.proof("POST", node.issuer + "/token"),
                          auth=("strict", WEB_SECRET))
    assert bound.status_code == 200 and bound.json()["token_type"] == "DPoP"
    introspected = requests.post(node.issuer + "/introspect", data={"token": bound.json()["access_token"]}, auth=("strict", WEB_SECRET),
                                 timeout=10).json()
    assert introspected["active"] and introspected["token_type"] == "DPoP"
    assert introspected["cnf"] == {"jkt": holder.thumbprint}
    listed = json.loads(node.cli("clients", "list", "--json").stdout)
    assert {client["id"]: client["require_dpop"] for client in listed} == {"app": False, "svc": False, "strict": True, "ops": False}
    # A bearer token from a client that does not bind stays a bearer token.
    plain = token_request(node, {"grant_type": "client_credentials"}, auth=("svc", WEB_SECRET)).json()
    assert plain["token_type"] == "Bearer"
    assert "cnf" not in requests.post(node.issuer + "/introspect", data={"token": plain["access_token"]}, auth=("svc", WEB_SECRET),
                                      timeout=10).json()


def test_the_rfc_9449_example_key_has_the_rfc_thumbprint(nodes):
    """The key of RFC 9449 §4.2's example proof is bound as §6.1's example `cnf.jkt` says."""
    node = nodes[0]
    example = {"kty": "EC", "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs", "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
               "crv": "P-256"}
    # The RFC's private key is not published; a proof signed by another key but naming this one is refused, and the
    # thumbprint the server computes for a key it accepts matches joserfc's (above); here joserfc's for the example.
    assert jwk.ECKey.import_key(example).thumbprint() == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
    holder = DPoPHolder()
    token_url = node.issuer + "/token"
    forged = holder.proof("POST", token_url, header={"jwk": example})
    response = token_request(node, {"grant_type": "client_credentials"}, forged, auth=("svc", WEB_SECRET))
    assert error_of(response) == "invalid_dpop_proof" and "signature" in response.json()["error_description"]


def test_the_nonce_flow(tmp_path):
    node = Server(config={"dpop": {"require_nonce": True}})
    try:
        node.add_user("alice", PASSWORD)
        node.add_client("app", APP_REDIRECT, public=True)
        holder = DPoPHolder()
        token_url = node.issuer + "/token"
        data = {"grant_type": "authorization_code", "code": app_code(node), "client_id": "app", "redirect_uri": APP_REDIRECT,
                "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"}
        # RFC 9449 §8: the first proof has no nonce; the server answers use_dpop_nonce with one, and the code is not spent.
        first = token_request(node, data, holder.proof("POST", token_url))
        assert first.status_code == 400 and error_of(first) == "use_dpop_nonce"
        nonce = first.headers["DPoP-Nonce"]
        assert len(nonce) >= 20
        wrong = token_request(node, data, holder.proof("POST", token_url, nonce="made-up"))
        assert error_of(wrong) == "use_dpop_nonce"
        granted = token_request(node, data, holder.proof("POST", token_url, nonce=nonce))
        assert granted.status_code == 200 and granted.json()["token_type"] == "DPoP", granted.text
        assert granted.headers["DPoP-Nonce"]
        access = granted.json()["access_token"]
        # The resource endpoint asks for the nonce the same way, with a 401 and a DPoP challenge.
        asked = userinfo(node, access, holder.proof("GET", node.issuer + "/userinfo", access))
        assert asked.status_code == 401 and error_of(asked) == "use_dpop_nonce"
        assert 'error="use_dpop_nonce"' in asked.headers["WWW-Authenticate"]
        answered = userinfo(node, access, holder.proof("GET", node.issuer + "/userinfo", access, nonce=asked.headers["DPoP-Nonce"]))
        assert answered.status_code == 200, answered.text
        # A wrong ath (a proof made for another token) is refused.
        other = userinfo(node, access, holder.proof("GET", node.issuer + "/userinfo", "another token", nonce=asked.headers["DPoP-Nonce"]))
        assert error_of(other) == "invalid_dpop_proof" and "ath" in other.json()["error_description"]
    finally:
        node.stop()
