"""Clients that register themselves (RFC 7591) and manage their registration (RFC 7592), when `dynamic_registration`
is on: with an initial access token from `gatehouse registration-tokens` or the admin API (a confidential or public
client), or — `open` — without one (a public client with https or loopback redirect URIs only, counted per client
address). Every such client is a third party: a person allows it on the consent page before it gets a code. Bad
metadata is refused with RFC 7591's error codes; expired, revoked and used-up initial access tokens are refused; the
registration access token reads, replaces and deletes the registration; operators see and remove such clients."""
import json
import sqlite3
import time
import uuid
from urllib.parse import urljoin

import pytest
import requests
from joserfc import jwk, jwt

from gatehouse_harness import (PASSWORD, RFC7636_VERIFIER, Browser, Server, authorize_url, conforms_to_admin_openapi, error_of, forms,
                               redirect_parameters, session_from)

REDIRECT = "http://127.0.0.1:9/registered"


@pytest.fixture(scope="module")
def registry():
    """A server whose clients may register themselves, openly too, at most four times an hour per client address."""
    server = Server(config={"dynamic_registration": {"enabled": True, "open": True, "registrations_per_hour": 4}})
    server.add_user("alice", PASSWORD)
    server.add_client("ops", "https://ops.example/cb", secret="ops-client-secret-0123456789-abcdefghijklmn", extra=["--scope", "gatehouse:admin"])
    yield server
    server.stop()


def initial_token(server, *extra):
    return json.loads(server.cli("registration-tokens", "create", f"dev-{time.monotonic_ns()}", *extra, "--json").stdout)["token"]


def register(server, metadata, token=None, session=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return (session or requests).post(server.issuer + "/register", json=metadata, headers=headers, timeout=10)


def test_discovery_names_the_endpoint_only_where_registration_is_on(registry, server):
    assert requests.get(registry.issuer + "/.well-known/openid-configuration", timeout=10).json()["registration_endpoint"] == \
        registry.issuer + "/register"
    assert "registration_endpoint" not in requests.get(server.issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
    assert requests.post(server.issuer + "/register", json={"redirect_uris": [REDIRECT]}, timeout=10).status_code == 404


def test_a_registered_client_signs_a_person_in_after_consent_and_manages_its_registration(registry):
    answer = register(registry, {"redirect_uris": [REDIRECT], "client_name": "Registered Notes", "scope": "openid profile offline_access",
                                 "grant_types": ["authorization_code", "refresh_token"], "token_endpoint_auth_method": "client_secret_post",
                                 "contacts": ["dev@example.com"], "software_id": "notes-app", "unknown_member": "ignored"},
                      token=initial_token(registry))
    assert answer.status_code == 201, answer.text
    assert answer.headers["Cache-Control"] == "no-store"
    client = answer.json()
    assert client["client_id"].startswith("dyn-") and len(client["client_secret"]) >= 43 and client["client_secret_expires_at"] == 0
    assert client["registration_client_uri"] == f"{registry.issuer}/register/{client['client_id']}" == answer.headers["Location"]
    assert client["client_name"] == "Registered Notes" and client["token_endpoint_auth_method"] == "client_secret_post"
    assert client["grant_types"] == ["authorization_code", "refresh_token"] and client["response_types"] == ["code"]
    assert "unknown_member" not in client

    # A third party: the person is asked first; then the code, redeemed with the secret in the body and PKCE.
    browser = Browser(registry)
    page = browser.sign_in(authorize_url(registry, client_id=client["client_id"], redirect_uri=REDIRECT, scope="openid profile offline_access"),
                           "alice", PASSWORD)
    assert page.status_code == 200 and "Allow Registered Notes access?" in page.text, page.text
    form = forms(page.text)[0]
    code = redirect_parameters(browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": "submit"}))["code"]
    tokens = requests.post(registry.issuer + "/token", data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER,
        "client_id": client["client_id"], "client_secret": client["client_secret"]}, timeout=10)
    assert tokens.status_code == 200 and "refresh_token" in tokens.json(), tokens.text

    # RFC 7592: read, replace, delete with the registration access token — and nothing without it.
    bearer = {"Authorization": f"Bearer {client['registration_access_token']}"}
    read = requests.get(client["registration_client_uri"], headers=bearer, timeout=10)
    assert read.status_code == 200 and read.json()["client_name"] == "Registered Notes" and "client_secret" not in read.json()
    assert requests.get(client["registration_client_uri"], headers={"Authorization": "Bearer not-the-token"}, timeout=10).status_code == 401
    assert requests.get(client["registration_client_uri"], timeout=10).status_code == 401
    other = requests.get(f"{registry.issuer}/register/dyn-unknown", headers=bearer, timeout=10)
    assert other.status_code == 401 and error_of(other) == "invalid_token"
    replaced = requests.put(client["registration_client_uri"], headers=bearer, timeout=10, json={
        "client_id": client["client_id"], "redirect_uris": [REDIRECT, REDIRECT + "2"], "client_name": "Renamed Notes",
        "token_endpoint_auth_method": "client_secret_post", "scope": "openid"})
    assert replaced.status_code == 200, replaced.text
    assert replaced.json()["client_name"] == "Renamed Notes" and replaced.json()["redirect_uris"] == [REDIRECT, REDIRECT + "2"]
    wrong_id = requests.put(client["registration_client_uri"], headers=bearer, json={"client_id": "someone-else", "redirect_uris": [REDIRECT]},
                            timeout=10)
    assert wrong_id.status_code == 400
    public_now = requests.put(client["registration_client_uri"], headers=bearer, timeout=10, json={
        "client_id": client["client_id"], "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"})
    assert public_now.status_code == 400 and error_of(public_now) == "invalid_client_metadata"
    # Narrowed to openid: the refresh token that carried profile and offline_access is gone.
    refreshed = requests.post(registry.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens.json()["refresh_token"]},
                              auth=(client["client_id"], client["client_secret"]), timeout=10)
    assert refreshed.status_code == 400 and error_of(refreshed) == "invalid_grant"

    assert requests.delete(client["registration_client_uri"], headers=bearer, timeout=10).status_code == 204
    assert requests.get(client["registration_client_uri"], headers=bearer, timeout=10).status_code == 401
    gone = requests.post(registry.issuer + "/token", data={"grant_type": "client_credentials"},
                         auth=(client["client_id"], client["client_secret"]), timeout=10)
    assert gone.status_code == 401 and error_of(gone) == "invalid_client"
    events = json.loads(registry.cli("events", "--json", "--limit", "500").stdout)
    kinds = [event["type"] for event in events if event.get("client_id") == client["client_id"]]
    assert {"client.registered", "client.updated", "client.deleted"} <= set(kinds), kinds


def test_bad_metadata_is_refused_with_rfc_7591_codes(registry):
    token = initial_token(registry)
    for metadata, code in [
        ({}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://example.com/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://example.com/cb#fragment"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["javascript:alert(1)"]}, "invalid_redirect_uri"),
        ({"redirect_uris": "https://example.com/cb"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "jwks_uri": "http://keys.example.com/jwks", "token_endpoint_auth_method": "private_key_jwt"},
         "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "grant_types": ["client_credentials"]}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "response_types": ["token"]}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "scope": "openid account"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "scope": "gatehouse:admin"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "logo_uri": "javascript:alert(1)"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "client_name": "x" * 300}, "invalid_client_metadata"),
        # A name that reads as another's on the consent page (a right-to-left override), and addresses that only look
        # like loopback (plain http allowed there) or that reach this machine or a private network from the person's browser.
        ({"redirect_uris": [REDIRECT], "client_name": "Notes \u202eppa"}, "invalid_client_metadata"),
        ({"redirect_uris": ["http://127.attacker.example/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["http://127.0.0.1.nip.io/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": [REDIRECT], "frontchannel_logout_uri": "http://127.0.0.1:9/fc"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "frontchannel_logout_uri": "https://192.168.1.1/fc"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "frontchannel_logout_uri": "https://localhost/fc"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "backchannel_logout_uri": "https://[::1]/bc"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "backchannel_logout_uri": "http://rp.example.com/logout"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "frontchannel_logout_uri": "https://rp.example.com/logout#top"}, "invalid_client_metadata"),
        ({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_jwt", "jwks": {"keys": []}}, "invalid_client_metadata"),
    ]:
        answer = register(registry, metadata, token=token)
        assert answer.status_code == 400 and error_of(answer) == code, (metadata, answer.text)
    # Logout URIs and client_secret_jwt are registered and answered back; a client_secret_jwt client gets a secret.
    answer = register(registry, {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_jwt",
                                 "backchannel_logout_uri": "https://rp.example.com/bc", "backchannel_logout_session_required": True,
                                 "frontchannel_logout_uri": "https://rp.example.com/fc"}, token=token)
    assert answer.status_code == 201, answer.text
    client = answer.json()
    assert client["token_endpoint_auth_method"] == "client_secret_jwt" and len(client["client_secret"]) >= 32
    assert client["backchannel_logout_uri"] == "https://rp.example.com/bc" and client["backchannel_logout_session_required"] is True
    assert client["frontchannel_logout_uri"] == "https://rp.example.com/fc"
    not_json = requests.post(registry.issuer + "/register", data="redirect_uris=x", headers={"Authorization": f"Bearer {token}",
                                                                                             "Content-Type": "application/json"}, timeout=10)
    assert not_json.status_code == 400 and error_of(not_json) == "invalid_client_metadata"


def test_a_client_gets_only_the_grants_it_registered(registry):
    """Attack script: an authorization-code-only client got refresh tokens, and a confidential self-registered client got
    client-credentials tokens. Registered grant types are held: no offline_access without refresh_token, and no
    client_credentials for a client that registered itself."""
    token = initial_token(registry)
    answer = register(registry, {"redirect_uris": [REDIRECT], "scope": "openid profile offline_access", "grant_types": ["authorization_code"],
                                 "token_endpoint_auth_method": "client_secret_basic"}, token=token)
    assert answer.status_code == 201, answer.text
    client = answer.json()
    assert client["grant_types"] == ["authorization_code"] and "offline_access" not in client["scope"].split(), client
    page = Browser(registry).sign_in(authorize_url(registry, client_id=client["client_id"], redirect_uri=REDIRECT, scope="openid offline_access"),
                                     "alice", PASSWORD)
    assert redirect_parameters(page).get("error") == "invalid_scope", page.headers.get("Location")
    own = requests.post(registry.issuer + "/token", data={"grant_type": "client_credentials"}, auth=(client["client_id"], client["client_secret"]),
                        timeout=10)
    assert own.status_code == 400 and error_of(own) == "unauthorized_client", own.text


def test_initial_access_tokens_expire_run_out_and_are_revoked(registry):
    metadata = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
    once = initial_token(registry, "--uses", "1")
    assert register(registry, metadata, token=once).status_code == 201
    used_up = register(registry, metadata, token=once)
    assert used_up.status_code == 401 and error_of(used_up) == "invalid_token"
    assert register(registry, metadata, token="ghr_made-up").status_code == 401

    # An hour-long token whose hour has passed (its expiry moved into the past in the database, as time would).
    expiring = json.loads(registry.cli("registration-tokens", "create", "expiring", "--expires-in", "1h", "--json").stdout)
    with sqlite3.connect(registry.database) as database:
        database.execute("UPDATE initial_access_tokens SET expires_at = ? WHERE id = ?", (int(time.time()) - 1, expiring["record"]["id"]))
    expired = register(registry, metadata, token=expiring["token"])
    assert expired.status_code == 401 and error_of(expired) == "invalid_token", expired.text

    revoked = json.loads(registry.cli("registration-tokens", "create", "revoked", "--json").stdout)
    registry.cli("registration-tokens", "revoke", revoked["record"]["id"])
    assert register(registry, metadata, token=revoked["token"]).status_code == 401
    listed = json.loads(registry.cli("registration-tokens", "list", "--json").stdout)
    by_id = {record["id"]: record for record in listed}
    assert by_id[revoked["record"]["id"]]["revoked_at"] and by_id[expiring["record"]["id"]]["uses"] == 0
    assert "ghr_" not in registry.cli("registration-tokens", "list").stdout


def test_open_registration_takes_public_clients_only_and_limits_each_address(registry):
    source = session_from("127.0.0.31")
    answer = register(registry, {"redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none"}, session=source)
    assert answer.status_code == 201 and "client_secret" not in answer.json(), answer.text
    assert answer.json()["token_endpoint_auth_method"] == "none"
    confidential = register(registry, {"redirect_uris": ["https://app.example/cb"]}, session=source)
    assert confidential.status_code == 400 and error_of(confidential) == "invalid_client_metadata"
    custom = register(registry, {"redirect_uris": ["com.example.app:/cb"], "token_endpoint_auth_method": "none"}, session=source)
    assert custom.status_code == 400 and error_of(custom) == "invalid_redirect_uri"
    # Four an hour from one address, whatever came of them; the fifth is refused, with how long to wait.
    flood = register(registry, {"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "none"}, session=source)
    assert flood.status_code == 201
    refused = register(registry, {"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "none"}, session=source)
    assert refused.status_code == 429 and error_of(refused) == "too_many_registrations" and int(refused.headers["Retry-After"]) > 0
    # Another address is not held back; an initial access token is not counted at all.
    elsewhere = register(registry, {"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "none"},
                         session=session_from("127.0.0.32"))
    assert elsewhere.status_code == 201
    with_token = register(registry, {"redirect_uris": ["https://app.example/cb"]}, token=initial_token(registry), session=source)
    assert with_token.status_code == 201

    # Openly registered and never used: it carries its removal time, and the admin API shows it as registered by itself.
    ops = requests.post(registry.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                        auth=("ops", "ops-client-secret-0123456789-abcdefghijklmn"), timeout=10).json()["access_token"]
    listed = conforms_to_admin_openapi(registry, requests.get(registry.issuer + "/admin/v1/clients",
                                                              headers={"Authorization": f"Bearer {ops}"}, timeout=10)).json()["items"]
    mine = next(item for item in listed if item["id"] == answer.json()["client_id"])
    assert mine["dynamic"] and mine["third_party"] and mine["public"] and mine["unused_expires_at"] > time.time() + 3600
    assert next(item for item in listed if item["id"] == with_token.json()["client_id"]).get("unused_expires_at") is None
    assert not next(item for item in listed if item["id"] == "ops")["dynamic"]
    removed = conforms_to_admin_openapi(registry, requests.delete(f"{registry.issuer}/admin/v1/clients/{answer.json()['client_id']}",
                                                                  headers={"Authorization": f"Bearer {ops}"}, timeout=10))
    assert removed.status_code == 204
    bearer = {"Authorization": f"Bearer {answer.json()['registration_access_token']}"}
    assert requests.get(answer.json()["registration_client_uri"], headers=bearer, timeout=10).status_code == 401


def test_operators_hand_out_initial_access_tokens_through_the_admin_api(registry):
    ops = requests.post(registry.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                        auth=("ops", "ops-client-secret-0123456789-abcdefghijklmn"), timeout=10).json()["access_token"]
    headers = {"Authorization": f"Bearer {ops}"}

    def call(method, path, **kwargs):
        return conforms_to_admin_openapi(registry, requests.request(method, registry.issuer + "/admin/v1" + path, headers=headers, timeout=10,
                                                                    **kwargs))

    created = call("POST", "/registration-tokens", json={"name": "partner team", "expires_in": 3600, "max_uses": 3})
    assert created.status_code == 201 and created.json()["token"].startswith("ghr_"), created.text
    record = created.json()["record"]
    assert record["max_uses"] == 3 and record["uses"] == 0 and record["expires_at"] - record["created_at"] == 3600
    assert register(registry, {"redirect_uris": [REDIRECT]}, token=created.json()["token"]).status_code == 201
    listed = call("GET", "/registration-tokens").json()["items"]
    assert next(item for item in listed if item["id"] == record["id"])["uses"] == 1
    for bad in [{"name": ""}, {"name": "x", "expires_in": 10}, {"name": "x", "max_uses": 0}, {"name": "x", "colour": "red"}]:
        assert call("POST", "/registration-tokens", json=bad).status_code == 400, bad
    assert call("DELETE", f"/registration-tokens/{record['id']}").status_code == 204
    assert call("DELETE", f"/registration-tokens/{record['id']}").status_code == 404
    assert register(registry, {"redirect_uris": [REDIRECT]}, token=created.json()["token"]).status_code == 401


def assertion(key, client_id, audience, **overrides):
    """A private_key_jwt client assertion (RFC 7523), signed by joserfc."""
    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "jti": str(uuid.uuid4()), "iat": now, "exp": now + 120}
    claims.update(overrides)
    return jwt.encode({"alg": "ES256", "kid": "k1"}, claims, key)


def test_a_client_registered_with_keys_authenticates_with_signed_assertions(registry):
    key = jwk.ECKey.generate_key("P-256", parameters={"kid": "k1"})
    public = {**key.as_dict(private=False), "kid": "k1", "use": "sig", "alg": "ES256"}
    answer = register(registry, {"redirect_uris": [REDIRECT], "client_name": "Keyed Client", "token_endpoint_auth_method": "private_key_jwt",
                                 "jwks": {"keys": [public]}, "scope": "openid"}, token=initial_token(registry))
    assert answer.status_code == 201, answer.text
    client = answer.json()
    assert "client_secret" not in client and client["token_endpoint_auth_method"] == "private_key_jwt" and client["jwks"]["keys"][0]["kid"] == "k1"
    metadata = requests.get(registry.issuer + "/.well-known/openid-configuration", timeout=10).json()
    assert "private_key_jwt" in metadata["token_endpoint_auth_methods_supported"]
    assert "ES256" in metadata["token_endpoint_auth_signing_alg_values_supported"]

    browser = Browser(registry)
    page = browser.sign_in(authorize_url(registry, client_id=client["client_id"], redirect_uri=REDIRECT, scope="openid"), "alice", PASSWORD)
    form = forms(page.text)[0]
    code = redirect_parameters(browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": "submit"}))["code"]

    def redeem(client_assertion, **extra):
        return requests.post(registry.issuer + "/token", data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": RFC7636_VERIFIER,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "client_assertion": client_assertion, **extra},
            timeout=10)

    # Refused, each leaving the code unspent: another audience, too long a life, another key, no assertion at all.
    other_key = jwk.ECKey.generate_key("P-256", parameters={"kid": "k1"})
    for refused in [assertion(key, client["client_id"], "https://elsewhere.example/token"),
                    assertion(key, client["client_id"], registry.issuer + "/token", exp=int(time.time()) + 7200),
                    assertion(key, client["client_id"], registry.issuer + "/token", exp=int(time.time()) - 5),
                    assertion(other_key, client["client_id"], registry.issuer + "/token")]:
        answer = redeem(refused)
        assert answer.status_code == 401 and error_of(answer) == "invalid_client", answer.text
    secretless = requests.post(registry.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                                                                 "code_verifier": RFC7636_VERIFIER, "client_id": client["client_id"]}, timeout=10)
    assert secretless.status_code == 401 and error_of(secretless) == "invalid_client"
    good = assertion(key, client["client_id"], registry.issuer + "/token")
    tokens = redeem(good)
    assert tokens.status_code == 200 and "access_token" in tokens.json(), tokens.text
    # Used once: the same assertion again is refused.
    replayed = requests.post(registry.issuer + "/introspect", data={
        "token": tokens.json()["access_token"], "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": good}, timeout=10)
    assert replayed.status_code == 401 and error_of(replayed) == "invalid_client"
    # A fresh one for introspection, addressed to the issuer.
    seen = requests.post(registry.issuer + "/introspect", data={
        "token": tokens.json()["access_token"], "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": assertion(key, client["client_id"], registry.issuer)}, timeout=10)
    assert seen.status_code == 200 and seen.json()["active"] and seen.json()["client_id"] == client["client_id"], seen.text
