"""Clients an operator registers to authenticate with assertions instead of sending a secret (RFC 7523, OpenID
Connect Core §9): `private_key_jwt` (keys given with `--jwks-file` or published at `--jwks-uri`) and
`client_secret_jwt` (an assertion MACed with the client's secret). Assertions are accepted at the token, PAR,
introspection, revocation and device-authorization endpoints, addressed to the issuer or to the endpoint; refused when
replayed, addressed elsewhere, unsigned (`alg: none`), signed by another client's key, or when the client's key set is
slow or too large to read. A client registered for assertions never authenticates with its secret, and no other client
with an assertion. Assertions are made by joserfc, independently of Gatehouse's own JOSE code."""
import http.server
import json
import threading
import time
import uuid
from urllib.parse import urljoin

import pytest
import requests
from joserfc import jwk, jwt

from gatehouse_harness import (PASSWORD, RFC7636_VERIFIER, Browser, Server, authorize_url, b64url, conforms_to_admin_openapi, error_of, forms,
                               redirect_parameters)

REDIRECT = "http://127.0.0.1:9/keyed"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


class KeySetHost:
    """A loopback web server publishing a client's key set at /keys, one that answers after three seconds at /slow,
    one whose body trickles in at /trickle, and one of 100 KiB at /huge; it counts the requests for /keys."""

    def __init__(self, public_key: dict):
        host = self
        self.fetches = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path == "/keys":
                    host.fetches += 1
                    body = json.dumps({"keys": [public_key]}).encode()
                elif self.path == "/slow":
                    time.sleep(3)
                    body = json.dumps({"keys": [public_key]}).encode()
                elif self.path == "/trickle":
                    # The head at once, then the body a byte every half second: every read arrives well within any
                    # read timeout, the whole would take minutes. Bounded: it stops after 12 bytes.
                    body = json.dumps({"keys": [public_key]}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    try:
                        for byte in body[:12]:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(0.5)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    return
                else:
                    body = json.dumps({"keys": [public_key], "padding": "x" * 100_000}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


def signing_key(kid: str):
    key = jwk.ECKey.generate_key("P-256", parameters={"kid": kid})
    return key, {**key.as_dict(private=False), "kid": kid, "use": "sig", "alg": "ES256"}


def assertion(key, client_id, audience, *, alg="ES256", kid="k1", **overrides):
    """A client assertion (RFC 7523 §3): signed with `key` (a private key, or the secret for HS256)."""
    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "jti": str(uuid.uuid4()), "iat": now, "exp": now + 120}
    claims.update(overrides)
    if alg.startswith("HS"):
        return jwt.encode({"alg": alg}, claims, jwk.OctKey.import_key(key), algorithms=[alg])
    return jwt.encode({"alg": alg, "kid": kid}, claims, key, algorithms=[alg])


def unsigned(client_id, audience):
    """An assertion with `alg: none` and no signature, which no server may accept."""
    now = int(time.time())
    header = b64url(json.dumps({"alg": "none"}).encode())
    payload = b64url(json.dumps({"iss": client_id, "sub": client_id, "aud": audience, "jti": str(uuid.uuid4()), "exp": now + 60}).encode())
    return f"{header}.{payload}."


def asserted(client_assertion, **form):
    return {"client_assertion_type": ASSERTION_TYPE, "client_assertion": client_assertion, **form}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    """A server with a private_key_jwt client whose keys were given (`keyed`), one whose keys are published
    (`published`), three whose key URLs are slow, trickle or are too large, a client_secret_jwt client (`mac`), and an ordinary
    confidential client (`plain`); key sets are fetched within a second."""
    server = Server(config={"client_metadata_documents": {"timeout": 1}})
    server.add_user("alice", PASSWORD)
    key, public = signing_key("k1")
    other_key, other_public = signing_key("k1")
    host = KeySetHost(public)
    folder = tmp_path_factory.mktemp("keys")
    (folder / "keyed.json").write_text(json.dumps({"keys": [public]}))
    (folder / "other.json").write_text(json.dumps({"keys": [other_public]}))
    common = ["--redirect-uri", REDIRECT, "--scope", "openid", "offline_access"]
    server.cli("clients", "add", "keyed", *common, "--auth-method", "private_key_jwt", "--jwks-file", str(folder / "keyed.json"), "--device-grant")
    server.cli("clients", "add", "other", *common, "--auth-method", "private_key_jwt", "--jwks-file", str(folder / "other.json"))
    server.cli("clients", "add", "published", *common, "--auth-method", "private_key_jwt", "--jwks-uri", host.url + "/keys")
    server.cli("clients", "add", "slow", *common, "--auth-method", "private_key_jwt", "--jwks-uri", host.url + "/slow")
    server.cli("clients", "add", "huge", *common, "--auth-method", "private_key_jwt", "--jwks-uri", host.url + "/huge")
    server.cli("clients", "add", "trickle", *common, "--auth-method", "private_key_jwt", "--jwks-uri", host.url + "/trickle")
    mac = json.loads(server.cli("clients", "add", "mac", *common, "--auth-method", "client_secret_jwt", "--generate-secret", "--json").stdout)
    plain_secret = "plain-client-secret-0123456789-abcdefghij"
    server.add_client("plain", REDIRECT, secret=plain_secret, extra=["--scope", "openid", "gatehouse:admin"])
    yield {"server": server, "key": key, "other_key": other_key, "host": host, "mac_secret": mac["client_secret"], "plain_secret": plain_secret,
           "mac": mac}
    host.stop()
    server.stop()


def code_for(server, client_id):
    browser = Browser(server)
    response = browser.sign_in(authorize_url(server, client_id=client_id, redirect_uri=REDIRECT, scope="openid offline_access"), "alice", PASSWORD)
    return redirect_parameters(response)["code"]


def redeem(server, code, client_assertion=None, **extra):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER, **extra}
    if client_assertion:
        form = asserted(client_assertion, **form)
    return requests.post(server.issuer + "/token", data=form, timeout=10)


def test_the_command_line_registers_each_method_and_discovery_names_them(keyed):
    server = keyed["server"]
    listed = {client["id"]: client for client in json.loads(server.cli("clients", "list", "--json").stdout)}
    assert listed["keyed"]["token_endpoint_auth_method"] == "private_key_jwt" and listed["keyed"]["jwks"]["keys"][0]["kid"] == "k1"
    assert listed["published"]["jwks_uri"] == keyed["host"].url + "/keys"
    assert listed["mac"]["token_endpoint_auth_method"] == "client_secret_jwt" and len(keyed["mac_secret"]) >= 32
    assert listed["plain"]["token_endpoint_auth_method"] == "client_secret_basic"
    table = server.cli("clients", "list").stdout
    assert "private_key_jwt" in table and "client_secret_jwt" in table
    metadata = requests.get(server.issuer + "/.well-known/openid-configuration", timeout=10).json()
    for member in ["token_endpoint_auth_methods_supported", "revocation_endpoint_auth_methods_supported",
                   "introspection_endpoint_auth_methods_supported"]:
        assert {"client_secret_jwt", "private_key_jwt", "client_secret_basic"} <= set(metadata[member])
    assert {"ES256", "RS256", "PS256", "EdDSA", "HS256"} <= set(metadata["token_endpoint_auth_signing_alg_values_supported"])
    assert "none" not in metadata["token_endpoint_auth_signing_alg_values_supported"]

    # Contradictions are refused with a readable message and no client.
    refused = server.cli("clients", "add", "bad", "--redirect-uri", REDIRECT, "--auth-method", "private_key_jwt", "--generate-secret", check=False)
    assert refused.returncode != 0 and "no secret" in refused.stderr
    refused = server.cli("clients", "add", "bad", "--redirect-uri", REDIRECT, "--auth-method", "private_key_jwt", check=False)
    assert refused.returncode != 0 and "--jwks-uri or --jwks-file" in refused.stderr
    refused = server.cli("clients", "add", "bad", "--redirect-uri", REDIRECT, "--auth-method", "private_key_jwt", "--jwks-uri",
                         "http://keys.example.com/jwks", check=False)
    assert refused.returncode != 0 and "https" in refused.stderr
    refused = server.cli("clients", "add", "bad", "--redirect-uri", REDIRECT, "--auth-method", "magic", "--generate-secret", check=False)
    assert refused.returncode != 0 and "--auth-method must be" in refused.stderr
    assert "bad" not in server.cli("clients", "list").stdout


def test_a_private_key_jwt_client_asserts_itself_at_every_endpoint(keyed):
    server, key = keyed["server"], keyed["key"]
    code = code_for(server, "keyed")
    # Refused, each leaving the code unspent: another audience, alg none, another client's key (with this client's
    # name), the client's secret-less id alone, an HMAC under a guessed secret.
    refusals = [
        assertion(key, "keyed", "https://elsewhere.example/token"),
        unsigned("keyed", server.issuer),
        assertion(keyed["other_key"], "keyed", server.issuer),
        assertion(b"0123456789abcdef0123456789abcdef", "keyed", server.issuer, alg="HS256"),
        # Not valid for another ten minutes (RFC 7523 §3): a signed assertion made ahead of time is not one for now.
        assertion(key, "keyed", server.issuer, nbf=int(time.time()) + 600),
    ]
    for refused in refusals:
        answer = redeem(server, code, refused)
        assert answer.status_code == 401 and error_of(answer) == "invalid_client", answer.text
    assert error_of(redeem(server, code, client_id="keyed")) == "invalid_client"
    # The issuer as audience (RFC 7523bis), then the endpoint's URL as older clients send it.
    tokens = redeem(server, code, assertion(key, "keyed", server.issuer))
    assert tokens.status_code == 200, tokens.text
    refreshed = requests.post(server.issuer + "/token", data=asserted(
        assertion(key, "keyed", server.issuer + "/token"), grant_type="refresh_token", refresh_token=tokens.json()["refresh_token"]), timeout=10)
    assert refreshed.status_code == 200, refreshed.text
    access_token = refreshed.json()["access_token"]

    used = assertion(key, "keyed", server.issuer)
    seen = requests.post(server.issuer + "/introspect", data=asserted(used, token=access_token), timeout=10)
    assert seen.status_code == 200 and seen.json()["active"] and seen.json()["client_id"] == "keyed", seen.text
    # Used once, whichever endpoint it comes back to.
    replayed = requests.post(server.issuer + "/revoke", data=asserted(used, token=access_token), timeout=10)
    assert replayed.status_code == 401 and error_of(replayed) == "invalid_client"

    pushed = requests.post(server.issuer + "/par", data=asserted(
        assertion(key, "keyed", server.issuer + "/par"), response_type="code", client_id="keyed", redirect_uri=REDIRECT, scope="openid",
        code_challenge="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method="S256"), timeout=10)
    assert pushed.status_code == 201 and pushed.json()["request_uri"].startswith("urn:ietf:params:oauth:request_uri:"), pushed.text
    device = requests.post(server.issuer + "/device_authorization", data=asserted(assertion(key, "keyed", server.issuer), scope="openid"),
                           timeout=10)
    assert device.status_code == 200 and device.json()["user_code"], device.text
    # A client_id that names another client than the assertion's subject is refused.
    mismatch = requests.post(server.issuer + "/device_authorization", data=asserted(
        assertion(key, "keyed", server.issuer), client_id="plain", scope="openid"), timeout=10)
    assert mismatch.status_code == 401 and error_of(mismatch) == "invalid_client"

    revoked = requests.post(server.issuer + "/revoke", data=asserted(assertion(key, "keyed", server.issuer), token=access_token), timeout=10)
    assert revoked.status_code == 200
    gone = requests.post(server.issuer + "/introspect", data=asserted(assertion(key, "keyed", server.issuer), token=access_token), timeout=10)
    assert gone.json() == {"active": False}


def test_a_client_secret_jwt_client_sends_only_assertions_maced_with_its_secret(keyed):
    server, secret = keyed["server"], keyed["mac_secret"]
    code = code_for(server, "mac")
    for refused in [
        assertion(b"another-secret-0123456789-abcdefghijklmnop", "mac", server.issuer, alg="HS256"),
        assertion(keyed["key"], "mac", server.issuer),
        unsigned("mac", server.issuer),
    ]:
        answer = redeem(server, code, refused)
        assert answer.status_code == 401 and error_of(answer) == "invalid_client", answer.text
    # Its secret itself is no way in: the method it registered is the only one.
    basic = requests.post(server.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                                          "code_verifier": RFC7636_VERIFIER}, auth=("mac", secret), timeout=10)
    assert basic.status_code == 401 and error_of(basic) == "invalid_client"
    tokens = redeem(server, code, assertion(secret.encode(), "mac", server.issuer, alg="HS256"))
    assert tokens.status_code == 200, tokens.text
    for algorithm in ["HS384", "HS512"]:
        seen = requests.post(server.issuer + "/introspect", data=asserted(
            assertion(secret.encode(), "mac", server.issuer, alg=algorithm), token=tokens.json()["access_token"]), timeout=10)
        assert seen.status_code == 200 and seen.json()["active"], seen.text
    # And an ordinary client never authenticates with an assertion, even one MACed with its own secret.
    plain = requests.post(server.issuer + "/introspect", data=asserted(
        assertion(keyed["plain_secret"].encode(), "plain", server.issuer, alg="HS256"), token=tokens.json()["access_token"]), timeout=10)
    assert plain.status_code == 401 and error_of(plain) == "invalid_client"


def test_published_keys_are_fetched_once_and_slow_or_huge_key_sets_are_refused(keyed):
    server, key, host = keyed["server"], keyed["key"], keyed["host"]
    code = code_for(server, "published")
    tokens = redeem(server, code, assertion(key, "published", server.issuer))
    assert tokens.status_code == 200, tokens.text
    for _ in range(3):
        seen = requests.post(server.issuer + "/introspect", data=asserted(
            assertion(key, "published", server.issuer), token=tokens.json()["access_token"]), timeout=10)
        assert seen.json()["active"]
    assert host.fetches == 1, "the published key set is cached, not fetched for every assertion"
    # Attack script: assertions naming a key the set lacks (anyone can make one) fetch it again once, not once each.
    for number in range(10):
        unknown = requests.post(server.issuer + "/introspect", data=asserted(
            assertion(key, "published", server.issuer, kid=f"forged-{number}"), token=tokens.json()["access_token"]), timeout=10)
        assert unknown.status_code == 401 and error_of(unknown) == "invalid_client", unknown.text
    assert host.fetches == 2, host.fetches

    for client_id, reason in [("slow", "could not be read"), ("trickle", "could not be read"), ("huge", "could not be read")]:
        started = time.monotonic()
        answer = requests.post(server.issuer + "/introspect", data=asserted(
            assertion(key, client_id, server.issuer), token=tokens.json()["access_token"]), timeout=15)
        assert answer.status_code == 401 and error_of(answer) == "invalid_client", answer.text
        assert reason in answer.json()["error_description"]
        assert time.monotonic() - started < 2.9, "the fetch gives up at the configured timeout"


def test_operators_register_clients_with_keys_through_the_admin_api(keyed):
    server = keyed["server"]
    admin = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                          auth=("plain", keyed["plain_secret"]), timeout=10).json()["access_token"]
    headers = {"Authorization": f"Bearer {admin}"}
    _, public = signing_key("api-1")
    created = conforms_to_admin_openapi(server, requests.post(server.issuer + "/admin/v1/clients", headers=headers, json={
        "id": "api-keyed", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": [public]}}, timeout=10))
    assert created.status_code == 201, created.text
    assert created.json()["client"]["token_endpoint_auth_method"] == "private_key_jwt" and "client_secret" not in created.json()
    mac = conforms_to_admin_openapi(server, requests.post(server.issuer + "/admin/v1/clients", headers=headers, json={
        "id": "api-mac", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_jwt"}, timeout=10))
    assert mac.status_code == 201 and len(mac.json()["client_secret"]) >= 32

    shown = conforms_to_admin_openapi(server, requests.get(server.issuer + "/admin/v1/clients/api-keyed", headers=headers, timeout=10))
    _, rotated = signing_key("api-2")
    changed = conforms_to_admin_openapi(server, requests.patch(server.issuer + "/admin/v1/clients/api-keyed", headers={
        **headers, "If-Match": shown.headers["ETag"]}, json={"jwks": {"keys": [rotated]}}, timeout=10))
    assert changed.status_code == 200 and changed.json()["jwks"]["keys"][0]["kid"] == "api-2", changed.text

    for body, words in [
        ({"id": "x1", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}, "public keys"),
        ({"id": "x2", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_basic", "jwks": {"keys": [public]}},
         "private_key_jwt"),
        ({"id": "x3", "redirect_uris": [REDIRECT], "public": True, "token_endpoint_auth_method": "private_key_jwt", "jwks": {"keys": [public]}},
         "public client"),
        ({"id": "x4", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "magic"}, None),
    ]:
        answer = requests.post(server.issuer + "/admin/v1/clients", headers=headers, json=body, timeout=10)
        assert answer.status_code == 400, answer.text
        if words:
            assert words in answer.json()["detail"], answer.text
    plain = requests.get(server.issuer + "/admin/v1/clients/plain", headers=headers, timeout=10)
    refused = requests.patch(server.issuer + "/admin/v1/clients/plain", headers={**headers, "If-Match": plain.headers["ETag"]},
                             json={"jwks": {"keys": [public]}}, timeout=10)
    assert refused.status_code == 400 and "private_key_jwt" in refused.json()["detail"]
    # Rotating a client_secret_jwt client's secret seals the new one: assertions MACed with it work, the old secret's fail.
    new_secret = requests.post(server.issuer + "/admin/v1/clients/api-mac/rotate-secret", headers=headers, timeout=10).json()["client_secret"]
    for secret, status in [(mac.json()["client_secret"], 401), (new_secret, 400)]:
        # 400: authenticated, then the device grant is not allowed to this client.
        answer = requests.post(server.issuer + "/device_authorization", data=asserted(
            assertion(secret.encode(), "api-mac", server.issuer, alg="HS256"), scope="openid"), timeout=10)
        assert answer.status_code == status, answer.text
