"""The admin REST API end to end with plain `requests`: a client with gatehouse:admin creates a user and a client and
rotates the keys, and the CLI and the audit trail see it; a read-only token cannot write; no token, a revoked or
expired one, a user's token and a client without an admin scope are refused; every response seen is validated
against the admin OpenAPI document; schemathesis finds no server error."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest
import requests

from gatehouse_harness import (APP_REDIRECT, PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, begin,
                               conforms_to_admin_openapi, get_code, redeem, refresh, submit)

OPS_SECRET = "ops-client-secret-0123456789-abcdefghijklmnop"
AUDITOR_SECRET = "auditor-client-secret-0123456789-abcdefghijk"
PLAIN_SECRET = "plain-client-secret-0123456789-abcdefghijklmn"


@pytest.fixture(scope="module")
def admin():
    server = Server()
    server.add_user("alice", PASSWORD, name="Alice Example")
    server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
    server.add_client("app", APP_REDIRECT, public=True)
    server.add_client("ops", "https://ops.example/cb", secret=OPS_SECRET, extra=["--scope", "gatehouse:admin"])
    server.add_client("auditor", "https://ops.example/cb", secret=AUDITOR_SECRET, extra=["--scope", "gatehouse:admin:read"])
    server.add_client("plain", "https://ops.example/cb", secret=PLAIN_SECRET, extra=["--scope", "phone"])
    yield server
    server.stop()


checked = conforms_to_admin_openapi


def token(server, client, secret, scope):
    answer = requests.post(server.issuer + "/token", data={"grant_type": "client_credentials", "scope": scope}, auth=(client, secret), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"]


def call(server, method, path, bearer=None, **kwargs):
    headers = kwargs.pop("headers", {})
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    return checked(server, requests.request(method, server.issuer + path, headers=headers, timeout=30, **kwargs))


def test_an_admin_client_manages_users_clients_and_keys(admin):
    bearer = token(admin, "ops", OPS_SECRET, "gatehouse:admin")
    created = call(admin, "POST", "/admin/v1/users", bearer, json={"username": "grace", "email": "grace@example.com", "name": "Grace H",
                                                                   "password": "a long and unusual passphrase 7"})
    assert created.status_code == 201 and created.headers["Location"] == f"/admin/v1/users/{created.json()['id']}"
    grace = created.json()
    assert grace["username"] == "grace" and grace["has_password"] and not grace["locked"]
    assert "grace" in admin.cli("users", "list").stdout
    duplicate = call(admin, "POST", "/admin/v1/users", bearer, json={"username": "grace", "email": "other@example.com"})
    assert duplicate.status_code == 409 and duplicate.headers["Content-Type"] == "application/problem+json"

    # Optimistic concurrency: no If-Match, a stale one, then the right one.
    read = call(admin, "GET", f"/admin/v1/users/{grace['id']}", bearer)
    etag = read.headers["ETag"]
    assert call(admin, "PATCH", f"/admin/v1/users/{grace['id']}", bearer, json={"name": "Grace Hopper"}).status_code == 428
    assert call(admin, "PATCH", f"/admin/v1/users/{grace['id']}", bearer, json={"name": "Grace Hopper"}, headers={"If-Match": '"stale"'}).status_code == 412
    changed = call(admin, "PATCH", f"/admin/v1/users/{grace['id']}", bearer, json={"name": "Grace Hopper"}, headers={"If-Match": etag})
    assert changed.status_code == 200 and changed.json()["name"] == "Grace Hopper" and changed.headers["ETag"] != etag
    # The first operator's ETag is now stale: a second blind write is refused.
    assert call(admin, "PATCH", f"/admin/v1/users/{grace['id']}", bearer, json={"name": "Someone"}, headers={"If-Match": etag}).status_code == 412

    found = call(admin, "GET", "/admin/v1/users?q=gra&limit=1", bearer).json()
    assert [user["username"] for user in found["items"]] == ["grace"]
    page = call(admin, "GET", "/admin/v1/users?limit=1", bearer).json()
    assert page["next_cursor"] and call(admin, "GET", f"/admin/v1/users?limit=1&cursor={page['next_cursor']}", bearer).json()["items"]
    locked = call(admin, "POST", f"/admin/v1/users/{grace['id']}/lock", bearer)
    assert locked.status_code == 200 and locked.json()["locked"]
    assert call(admin, "POST", f"/admin/v1/users/{grace['id']}/unlock", bearer).json()["locked"] is False

    client = call(admin, "POST", "/admin/v1/clients", bearer, json={"id": "shop", "redirect_uris": ["https://shop.example/cb"], "name": "Shop"})
    assert client.status_code == 201 and len(client.json()["client_secret"]) >= 32
    assert "shop" in admin.cli("clients", "list").stdout
    # The secret shown once works at the token endpoint.
    assert requests.post(admin.issuer + "/token", data={"grant_type": "client_credentials"}, auth=("shop", client.json()["client_secret"]),
                         timeout=10).status_code == 200

    # A client's settings change the same way: If-Match, then the new redirect URI works at /authorize.
    shop = call(admin, "GET", "/admin/v1/clients/shop", bearer)
    assert call(admin, "PATCH", "/admin/v1/clients/shop", bearer, json={"name": "Shop 2"}).status_code == 428
    moved = call(admin, "PATCH", "/admin/v1/clients/shop", bearer, headers={"If-Match": shop.headers["ETag"]},
                 json={"redirect_uris": ["https://shop.example/cb", "https://shop.example/new"], "scopes": ["openid", "email"]})
    assert moved.status_code == 200 and moved.json()["redirect_uris"][-1] == "https://shop.example/new"
    assert moved.json()["scopes"] == ["openid", "email"] and moved.headers["ETag"] != shop.headers["ETag"]
    assert call(admin, "PATCH", "/admin/v1/clients/shop", bearer, headers={"If-Match": shop.headers["ETag"]}, json={"name": "x"}).status_code == 412
    bad = call(admin, "PATCH", "/admin/v1/clients/shop", bearer, headers={"If-Match": "*"}, json={"scopes": ["openid", "root"]})
    assert bad.status_code == 400 and "root" in bad.json()["detail"]
    authorize = requests.get(admin.issuer + "/authorize", params={"client_id": "shop", "redirect_uri": "https://shop.example/new", "response_type": "code",
                                                                  "scope": "openid", "state": "s", "code_challenge": "x" * 43,
                                                                  "code_challenge_method": "S256"}, allow_redirects=False, timeout=10)
    assert authorize.status_code in (200, 302, 303) and "shop.example/new?error" not in authorize.headers.get("Location", "")

    before = {key["kid"] for key in call(admin, "GET", "/admin/v1/keys", bearer).json()["items"]}
    rotated = call(admin, "POST", "/admin/v1/keys/rotate", bearer).json()["items"]
    assert rotated and not {key["kid"] for key in rotated} & before
    assert all(key["kid"] in admin.cli("keys", "list").stdout for key in rotated)
    # A retired key withdrawn now leaves the JWKS; a key that signs cannot be.
    assert call(admin, "DELETE", f"/admin/v1/keys/{rotated[0]['kid']}", bearer).status_code == 409
    withdrawn = sorted(before)[0]
    assert call(admin, "DELETE", f"/admin/v1/keys/{withdrawn}", bearer).status_code == 204
    assert withdrawn not in {key["kid"] for key in requests.get(admin.issuer + "/jwks", timeout=10).json()["keys"]}
    assert call(admin, "DELETE", f"/admin/v1/keys/{withdrawn}", bearer).status_code == 404

    trail = call(admin, "GET", "/admin/v1/events?limit=500", bearer).json()["items"]
    mine = [event for event in trail if event["actor"] == "client:ops"]
    assert [event["type"] for event in mine] == ["account.created", "account.updated", "account.locked", "account.unlocked", "client.created",
                                                  "client.updated", "keys.rotated", "key.removed"]
    updated = mine[1]["details"]
    assert updated == {"name.before": "Grace H", "name.after": "Grace Hopper"}
    assert mine[5]["client_id"] == "shop" and mine[5]["details"]["scopes.after"] == "openid email"
    assert mine[5]["details"]["redirect_uris.after"] == "https://shop.example/cb https://shop.example/new"
    assert call(admin, "DELETE", f"/admin/v1/users/{grace['id']}", bearer).status_code == 204
    assert call(admin, "GET", f"/admin/v1/users/{grace['id']}", bearer).status_code == 404


def test_console_roles_are_given_read_and_taken_through_the_api(admin):
    bearer = token(admin, "ops", OPS_SECRET, "gatehouse:admin")
    reader = token(admin, "auditor", AUDITOR_SECRET, "gatehouse:admin:read")
    ada = call(admin, "POST", "/admin/v1/users", bearer, json={"username": "ada-role", "email": "ada-role@example.com"}).json()
    path = f"/admin/v1/users/{ada['id']}/admin-role"
    assert call(admin, "GET", path, bearer).status_code == 404
    assert call(admin, "PUT", path, reader, json={"role": "viewer"}).status_code == 403
    assert call(admin, "PUT", path, bearer, json={"role": "owner"}).status_code == 400
    assert call(admin, "PUT", path, bearer, json={"role": "viewer", "extra": 1}).status_code == 400
    given = call(admin, "PUT", path, bearer, json={"role": "operator"})
    assert given.status_code == 200 and given.json()["role"] == "operator" and given.json()["granted_by"] == "client:ops", given.text
    assert call(admin, "PUT", path, bearer, json={"role": "viewer"}).json()["role"] == "viewer"
    listed = call(admin, "GET", "/admin/v1/admin-roles", reader).json()["items"]
    assert ("ada-role", "viewer") in [(holder["username"], holder["role"]) for holder in listed]
    assert "ada-role" in admin.cli("admins", "list").stdout
    assert call(admin, "DELETE", path, bearer).status_code == 204
    assert call(admin, "DELETE", path, bearer).status_code == 404
    trail = call(admin, "GET", f"/admin/v1/events?user_id={ada['id']}", bearer).json()["items"]
    assert [(event["type"], event["actor"]) for event in trail if event["type"].startswith("admin_role.")] == [
        ("admin_role.granted", "client:ops"), ("admin_role.granted", "client:ops"), ("admin_role.revoked", "client:ops")]


def test_who_may_do_what(admin):
    reader = token(admin, "auditor", AUDITOR_SECRET, "gatehouse:admin:read")
    assert call(admin, "GET", "/admin/v1/users", reader).status_code == 200
    refused = call(admin, "POST", "/admin/v1/users", reader, json={"username": "mallory", "email": "m@example.com"})
    assert refused.status_code == 403 and refused.json()["type"] == "/admin/v1/problems/insufficient-scope"

    nobody = call(admin, "GET", "/admin/v1/users")
    assert nobody.status_code == 401 and nobody.headers["WWW-Authenticate"].startswith("Bearer")
    assert call(admin, "GET", "/admin/v1/users", "not-a-token").status_code == 401
    assert call(admin, "GET", "/admin/v1/users", token(admin, "plain", PLAIN_SECRET, "phone")).status_code == 403
    user_token = redeem(admin, get_code(admin)).json()["access_token"]
    assert call(admin, "GET", "/admin/v1/users", user_token).status_code == 403
    # Admin scopes never come through a user's sign-in.
    asked = requests.get(authorize_url(admin, scope="openid gatehouse:admin"), allow_redirects=False, timeout=10)
    assert "invalid_scope" in asked.headers.get("Location", "")


def test_an_expired_admin_token_is_refused():
    # A server of its own whose access tokens live 2 seconds: the shared one keeps the default lifetime, so that the
    # long walk-throughs above never outlive their bearer on a busy machine.
    server = Server(config={"token_lifetimes": {"access_token": 2}})
    try:
        server.add_client("ops", "https://ops.example/cb", secret=OPS_SECRET, extra=["--scope", "gatehouse:admin"])
        expiring = token(server, "ops", OPS_SECRET, "gatehouse:admin")
        assert call(server, "GET", "/admin/v1/keys", expiring).status_code == 200
        time.sleep(3)
        expired = call(server, "GET", "/admin/v1/keys", expiring)
        assert expired.status_code == 401 and "invalid_token" in expired.headers["WWW-Authenticate"]
    finally:
        server.stop()


def test_personal_admin_tokens(admin):
    created = json.loads(admin.cli("admin-tokens", "create", "nightly-export", "--read-only", "--json").stdout)
    personal = created["token"]
    assert personal.startswith("gha_")
    assert call(admin, "GET", "/admin/v1/events?type=admin_token.created", personal).json()["items"]
    assert call(admin, "POST", "/admin/v1/keys/rotate", personal).status_code == 403
    listed = admin.cli("admin-tokens", "list").stdout
    assert "nightly-export" in listed and personal not in listed
    admin.cli("admin-tokens", "revoke", created["record"]["id"])
    assert call(admin, "GET", "/admin/v1/users", personal).status_code == 401
    # Stored only as a digest.
    assert personal.encode() not in open(admin.database, "rb").read()


def test_schemathesis_finds_no_server_error(tmp_path):
    """On a server of its own: the fuzzer deletes, rotates and locks whatever it finds."""
    pytest.importorskip("schemathesis", reason="schemathesis is not installed (pip install schemathesis)")
    fuzzed = Server()
    try:
        fuzzed.add_user("alice", PASSWORD)
        created = json.loads(fuzzed.cli("admin-tokens", "create", "schemathesis", "--json").stdout)
        result = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "run", fuzzed.issuer + "/openapi/admin.json", "--url", fuzzed.issuer,
             "--header", f"Authorization: Bearer {created['token']}", "--checks", "not_a_server_error", "--max-examples", "8",
             "--phases", "examples,coverage,fuzzing", "--no-color"],
            capture_output=True, text=True, timeout=900, cwd=tmp_path)
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
        assert "passed" in result.stdout and " 0 passed" not in result.stdout
    finally:
        fuzzed.stop()


def test_the_cli_against_a_remote_server(admin, tmp_path):
    """`--server URL` runs the admin commands through the API, with the token from GATEHOUSE_ADMIN_TOKEN."""
    from gatehouse_harness import gatehouse
    personal = json.loads(admin.cli("admin-tokens", "create", "remote-cli", "--json").stdout)["token"]
    environment = {"GATEHOUSE_ADMIN_TOKEN": personal}
    remote = ["--server", admin.issuer]
    added = gatehouse("users", "add", "remo", "--email", "remo@example.com", "--password-stdin", *remote, stdin="a long and unusual passphrase 9",
                      env=environment)
    assert "Added user remo" in added.stdout
    assert "remo" in admin.cli("users", "list").stdout  # on the server's own database
    gatehouse("users", "lock", "remo", *remote, env=environment)
    listed = json.loads(gatehouse("users", "list", "--json", *remote, env=environment).stdout)
    assert next(user for user in listed if user["username"] == "remo")["locked"] is True
    events = gatehouse("events", "--type", "account.locked", "--user", "remo", *remote, env=environment).stdout
    assert "admin-token:remote-cli" in events
    gatehouse("users", "delete", "remo", *remote, env=environment)

    # Clients: the same operations as on the database, through the API; what the API does not offer is refused.
    made = json.loads(gatehouse("clients", "add", "remote-app", "--redirect-uri", "https://remote.example/cb", "--generate-secret", "--json",
                                *remote, env=environment).stdout)
    assert made["client"]["id"] == "remote-app" and made["client"]["type"] == "confidential" and len(made["client_secret"]) >= 32
    local_clients = {client["id"]: client for client in json.loads(admin.cli("clients", "list", "--json").stdout)}
    remote_clients = {client["id"]: client for client in json.loads(gatehouse("clients", "list", "--json", *remote, env=environment).stdout)}
    assert local_clients == remote_clients and "remote-app" in remote_clients
    given = gatehouse("clients", "add", "given-secret", "--redirect-uri", "https://remote.example/cb", "--secret-stdin", *remote,
                      stdin="a" * 40, env=environment, check=False)
    assert given.returncode != 0 and "generates the secret" in given.stderr
    taken = gatehouse("clients", "add", "remote-app", "--redirect-uri", "https://remote.example/cb", "--public", *remote, env=environment,
                      check=False)
    assert taken.returncode != 0 and "already exists" in taken.stderr
    assert "Deleted client remote-app" in gatehouse("clients", "delete", "remote-app", *remote, env=environment).stdout
    gone = gatehouse("clients", "delete", "remote-app", *remote, env=environment, check=False)
    assert gone.returncode != 0 and "There is no client" in gone.stderr
    created = json.loads(gatehouse("events", "--type", "client.created", "--json", *remote, env=environment).stdout)
    assert any(event["client_id"] == "remote-app" and event["actor"] == "admin-token:remote-cli" for event in created), created

    # Devices, the outbox (without bodies: they hold codes), linked identities and passkeys the same way.
    flow = begin(admin, "recovery")
    submit(admin, flow["flow_id"], {"username": "alice"})
    assert submit(admin, flow["flow_id"], {"method": "email"}).json()["node"]["id"] == "recovery.code"
    local = json.loads(admin.cli("outbox", "--to", "alice@example.com", "--json").stdout)
    through_api = json.loads(gatehouse("outbox", "--to", "alice@example.com", "--json", *remote, env=environment).stdout)
    assert [message["id"] for message in through_api] == [message["id"] for message in local] and through_api
    assert all("body" not in message and "subject" not in message for message in through_api)
    assert "shown only on the server's machine" in gatehouse("outbox", *remote, env=environment).stdout
    assert "No device identities." in gatehouse("devices", "list", *remote, env=environment).stdout
    unknown = gatehouse("devices", "unblock", "none", *remote, env=environment, check=False)
    assert unknown.returncode != 0 and "There is no registered device identity none" in unknown.stderr
    assert "alice has no linked identities." in gatehouse("users", "identities", "alice", *remote, env=environment).stdout
    assert "alice has no passkeys." in gatehouse("users", "passkeys", "alice", *remote, env=environment).stdout
    gone = gatehouse("users", "passkeys", "alice", "--remove", "none", *remote, env=environment, check=False)
    assert gone.returncode != 0 and "no passkey none" in gone.stderr
    # Ids are base64url, so one may begin with '-': it is still the option's value, not another option.
    dashed = gatehouse("users", "passkeys", "alice", "--remove", "-Abc_1", *remote, env=environment, check=False)
    assert dashed.returncode != 0 and "no passkey -Abc_1" in dashed.stderr, dashed.stderr
    dashed = gatehouse("users", "sessions", "alice", "--revoke", "-Abc_1", *remote, env=environment, check=False)
    assert dashed.returncode != 0 and "no live grant -Abc_1" in dashed.stderr, dashed.stderr
    dashed = admin.cli("users", "sessions", "alice", "--end", "-Abc_1", check=False)
    assert dashed.returncode != 0 and "no browser session -Abc_1" in dashed.stderr, dashed.stderr
    # Where alice is signed in: the same listing from the database and through the API; a grant revoked remotely.
    redeem(admin, get_code(admin))
    local_listing = json.loads(admin.cli("users", "sessions", "alice", "--json").stdout)
    remote_listing = json.loads(gatehouse("users", "sessions", "alice", "--json", *remote, env=environment).stdout)
    assert local_listing == remote_listing and remote_listing["sessions"] and remote_listing["grants"]
    grant = remote_listing["grants"][0]["id"]
    assert "its tokens work no more" in gatehouse("users", "sessions", "alice", "--revoke", grant, *remote, env=environment).stdout
    assert grant not in admin.cli("users", "sessions", "alice").stdout
    session = local_listing["sessions"][0]["id"]
    assert f"Ended alice's browser session {session}" in admin.cli("users", "sessions", "alice", "--end", session).stdout
    ended = json.loads(gatehouse("events", "--type", "session.ended", "--json", *remote, env=environment).stdout)
    assert [event["actor"].startswith("operator:") for event in ended] == [True]
    # A command that only works on the database says so instead of quietly opening a local one.
    local_only = gatehouse("admin-tokens", "list", *remote, env=environment, check=False)
    assert local_only.returncode != 0 and "server's database only" in local_only.stderr
    refused = gatehouse("users", "list", *remote, env={"GATEHOUSE_ADMIN_TOKEN": "gha_wrong"}, check=False)
    assert refused.returncode != 0 and "The server refused" in refused.stderr
    missing = gatehouse("users", "list", *remote, env={"GATEHOUSE_ADMIN_TOKEN": ""}, check=False)
    assert missing.returncode != 0 and "GATEHOUSE_ADMIN_TOKEN" in missing.stderr


def test_sessions_factors_secrets_devices_and_outbox(admin):
    bearer = token(admin, "ops", OPS_SECRET, "gatehouse:admin")
    alice = next(user for user in call(admin, "GET", "/admin/v1/users?q=alice", bearer).json()["items"] if user["username"] == "alice")
    # Signed out everywhere: her refresh token stops working.
    tokens = redeem(admin, get_code(admin)).json()
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/sessions", bearer).status_code == 204
    refreshed = requests.post(admin.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                              auth=("web", WEB_SECRET), timeout=10)
    assert refreshed.status_code == 400
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/factors", bearer).status_code == 204
    assert call(admin, "GET", f"/admin/v1/users/{alice['id']}/passkeys", bearer).json() == {"items": []}
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/passkeys/none", bearer).status_code == 404
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/identities/corp", bearer).status_code == 404

    # Where she is signed in, ended one place at a time: a grant (its refresh token stops working), then the browser
    # session (the browser is asked to sign in again).
    browser = Browser(admin)
    tokens = redeem(admin, get_code(admin, browser)).json()
    sessions = call(admin, "GET", f"/admin/v1/users/{alice['id']}/sessions", bearer).json()["items"]
    grants = call(admin, "GET", f"/admin/v1/users/{alice['id']}/grants", bearer).json()["items"]
    assert len(sessions) == 1 and sessions[0]["methods"] == ["pwd"]
    assert len(grants) == 1 and grants[0]["client_id"] == "web" and grants[0]["refreshable"]
    assert set(grants[0]["scopes"]) == {"openid", "profile", "offline_access"}
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/grants/{grants[0]['id']}", bearer).status_code == 204
    assert refresh(admin, tokens["refresh_token"]).status_code == 400
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/grants/{grants[0]['id']}", bearer).status_code == 404
    assert call(admin, "GET", f"/admin/v1/users/{alice['id']}/grants", bearer).json() == {"items": []}
    assert browser.get(authorize_url(admin)).status_code in (302, 303)  # still signed in: straight back with a code
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/sessions/{sessions[0]['id']}", bearer).status_code == 204
    again = browser.get(authorize_url(admin))
    assert again.status_code == 200 and 'name="password"' in again.text
    assert call(admin, "DELETE", f"/admin/v1/users/{alice['id']}/sessions/{sessions[0]['id']}", bearer).status_code == 404

    created = call(admin, "POST", "/admin/v1/clients", bearer, json={"id": "rotating", "redirect_uris": ["https://r.example/cb"]}).json()
    old = created["client_secret"]
    new = call(admin, "POST", "/admin/v1/clients/rotating/rotate-secret", bearer).json()["client_secret"]
    grant = {"grant_type": "client_credentials"}
    assert requests.post(admin.issuer + "/token", data=grant, auth=("rotating", old), timeout=10).status_code == 401
    assert requests.post(admin.issuer + "/token", data=grant, auth=("rotating", new), timeout=10).status_code == 200
    assert call(admin, "POST", "/admin/v1/clients/web-missing/rotate-secret", bearer).status_code == 404

    assert call(admin, "GET", "/admin/v1/devices", bearer).status_code == 200
    assert call(admin, "POST", "/admin/v1/devices/none/unblock", bearer).status_code == 404
    outbox = call(admin, "GET", "/admin/v1/outbox?limit=5", bearer)
    assert outbox.status_code == 200 and all("body" not in message for message in outbox.json()["items"])
    kinds = [event["type"] for event in call(admin, "GET", "/admin/v1/events?limit=500", bearer).json()["items"]]
    assert {"token.revoked", "factor.removed", "client.secret_rotated", "session.ended"} <= set(kinds)


@pytest.fixture(scope="module")
def lasting():
    """A server with the default token lifetimes (15 minutes), so that nothing in these tests ends by expiring."""
    server = Server()
    server.add_client("ops", "https://ops.example/cb", secret=OPS_SECRET, extra=["--scope", "gatehouse:admin"])
    yield server
    server.stop()


def introspected(server, access_token, auth):
    """Whether the token is active, as its own client learns by introspection (RFC 7662)."""
    answer = requests.post(server.issuer + "/introspect", data={"token": access_token}, auth=auth, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()["active"]


def test_removing_an_admin_scope_or_rotating_the_secret_ends_the_tokens_that_had_it(lasting):
    bearer = token(lasting, "ops", OPS_SECRET, "gatehouse:admin")
    created = call(lasting, "POST", "/admin/v1/clients", bearer, json={
        "id": "robot", "redirect_uris": ["https://robot.example/cb"], "scopes": ["openid", "phone", "gatehouse:admin", "gatehouse:admin:read"]})
    assert created.status_code == 201, created.text
    secret = created.json()["client_secret"]
    robot_admin = token(lasting, "robot", secret, "gatehouse:admin")
    robot_reader = token(lasting, "robot", secret, "gatehouse:admin:read")
    robot_phone = token(lasting, "robot", secret, "phone")
    assert call(lasting, "GET", "/admin/v1/users", robot_admin).status_code == 200

    # gatehouse:admin taken away: the token that carried it stops at once; the others carry scopes the client keeps.
    read = call(lasting, "GET", "/admin/v1/clients/robot", bearer)
    changed = call(lasting, "PATCH", "/admin/v1/clients/robot", bearer, headers={"If-Match": read.headers["ETag"]},
                   json={"scopes": ["openid", "phone", "gatehouse:admin:read"]})
    assert changed.status_code == 200, changed.text
    assert call(lasting, "GET", "/admin/v1/users", robot_admin).status_code == 401
    assert not introspected(lasting, robot_admin, ("robot", secret))
    assert call(lasting, "GET", "/admin/v1/users", robot_reader).status_code == 200
    assert introspected(lasting, robot_phone, ("robot", secret))

    # A new secret: every token taken with the old one ends, whatever its scopes.
    rotated = call(lasting, "POST", "/admin/v1/clients/robot/rotate-secret", bearer)
    assert rotated.status_code == 200
    new_secret = rotated.json()["client_secret"]
    assert call(lasting, "GET", "/admin/v1/users", robot_reader).status_code == 401
    assert not introspected(lasting, robot_reader, ("robot", new_secret)) and not introspected(lasting, robot_phone, ("robot", new_secret))
    fresh = token(lasting, "robot", new_secret, "gatehouse:admin:read")
    assert call(lasting, "GET", "/admin/v1/users", fresh).status_code == 200
    # The operator's own token, another client's, is untouched throughout.
    assert call(lasting, "GET", "/admin/v1/users", bearer).status_code == 200


def test_an_admin_write_with_a_member_it_does_not_know_is_refused_by_name(lasting):
    bearer = token(lasting, "ops", OPS_SECRET, "gatehouse:admin")
    refused = call(lasting, "POST", "/admin/v1/clients", bearer, json={
        "id": "unknowing", "redirect_uris": ["https://u.example/cb"], "x_color": "red", "sector_identifier_uri": "https://u.example/s",
        "bogus_field": 1})
    assert refused.status_code == 400 and refused.headers["Content-Type"] == "application/problem+json"
    detail = refused.json()["detail"]
    assert "bogus_field, sector_identifier_uri, x_color" in detail, detail
    assert call(lasting, "GET", "/admin/v1/clients/unknowing", bearer).status_code == 404  # nothing was created
    for path, body in [("/admin/v1/users", {"username": "ulla", "email": "ulla@example.com", "role": "admin"})]:
        answer = call(lasting, "POST", path, bearer, json=body)
        assert answer.status_code == 400 and "role" in answer.json()["detail"], answer.text
    created = call(lasting, "POST", "/admin/v1/users", bearer, json={"username": "ulla", "email": "ulla@example.com"}).json()
    read = call(lasting, "GET", f"/admin/v1/users/{created['id']}", bearer)
    patched = call(lasting, "PATCH", f"/admin/v1/users/{created['id']}", bearer, headers={"If-Match": read.headers["ETag"]},
                   json={"name": "Ulla", "zoneinfo": "Europe/Berlin"})
    assert patched.status_code == 400 and "zoneinfo" in patched.json()["detail"]
    assert call(lasting, "GET", f"/admin/v1/users/{created['id']}", bearer).json().get("name") is None  # nothing changed


def test_an_operator_sets_a_persons_language_which_is_their_locale_claim(admin, tmp_path):
    """The admin API, `users add --locale`, `users set-locale` (on the database and through `--server`) and
    `users import` set a person's language; the ID token and userinfo carry it as the `profile` scope's `locale`."""
    from gatehouse_harness import gatehouse, redirect_parameters, verify_id_token
    bearer = token(admin, "ops", OPS_SECRET, "gatehouse:admin")
    made = call(admin, "POST", "/admin/v1/users", bearer, json={"username": "lena", "email": "lena@example.com", "locale": "de",
                                                                "password": "a long and unusual passphrase 3"})
    assert made.status_code == 201 and made.json()["locale"] == "de", made.text
    typed = call(admin, "POST", "/admin/v1/users", bearer, data="username=tlh", headers={"Content-Type": "text/plain"})
    assert typed.status_code == 415 and typed.headers["Content-Type"].startswith("application/problem+json"), typed.text
    wrong = call(admin, "POST", "/admin/v1/users", bearer, json={"username": "tlh", "email": "tlh@example.com", "locale": "tlh"})
    assert wrong.status_code == 400 and "locale must be one of en, de, fr, es, ja, ar" in wrong.text
    assert "tlh@example.com" not in admin.cli("users", "list").stdout, "a refused account is not half made"

    def claims(username):
        code = redirect_parameters(Browser(admin).sign_in(authorize_url(admin), username, "a long and unusual passphrase 3"))["code"]
        tokens = redeem(admin, code).json()
        userinfo = requests.get(admin.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10).json()
        return verify_id_token(admin, tokens, "web", "n-456", "RS256").get("locale"), userinfo.get("locale")

    assert claims("lena") == ("de", "de")
    assert "locale" in requests.get(admin.issuer + "/.well-known/openid-configuration", timeout=10).json()["claims_supported"]

    # PATCH: a regional tag is its language's; an empty one follows the browser again (no claim); audited.
    lena = made.json()["id"]
    changed = call(admin, "PATCH", f"/admin/v1/users/{lena}", bearer, json={"locale": "fr-CA"}, headers={"If-Match": "*"})
    assert changed.status_code == 200 and changed.json()["locale"] == "fr"
    assert claims("lena") == ("fr", "fr")
    cleared = call(admin, "PATCH", f"/admin/v1/users/{lena}", bearer, json={"locale": ""}, headers={"If-Match": "*"})
    assert cleared.status_code == 200 and "locale" not in cleared.json()
    assert claims("lena") == (None, None)
    updates = [event["details"] for event in json.loads(admin.cli("events", "--user", "lena", "--type", "account.updated", "--json").stdout)]
    assert {"locale.before": "fr", "locale.after": ""}.items() <= updates[-1].items(), updates

    # The CLI: on the database, and through the admin API with --server.
    admin.cli("users", "add", "jun", "--email", "jun@example.com", "--locale", "ja", "--password-stdin", stdin="a long and unusual passphrase 3")
    assert claims("jun") == ("ja", "ja")
    refused = admin.cli("users", "add", "kit", "--email", "kit@example.com", "--locale", "xx", "--password-stdin", stdin="a long and unusual passphrase 3",
                        check=False)
    assert refused.returncode != 0 and "locale must be one of" in refused.stderr and "Fatal" not in refused.stderr
    assert "reads pages and messages in es" in admin.cli("users", "set-locale", "jun", "es").stdout
    personal = json.loads(admin.cli("admin-tokens", "create", "locale-cli", "--json").stdout)["token"]
    remote = gatehouse("users", "set-locale", "jun", "ar", "--server", admin.issuer, env={"GATEHOUSE_ADMIN_TOKEN": personal})
    assert "reads pages and messages in ar" in remote.stdout
    assert claims("jun") == ("ar", "ar")

    # An import names each person's language; a wrong one imports nobody.
    lines = tmp_path / "people.jsonl"
    lines.write_text(json.dumps({"username": "noor", "email": "noor@example.com", "password": "a long and unusual passphrase 3", "locale": "ar"}) + "\n")
    admin.cli("users", "import", str(lines))
    assert claims("noor") == ("ar", "ar")
    lines.write_text(json.dumps({"username": "omar", "email": "omar@example.com", "password": "a long and unusual passphrase 3", "locale": "zz"}) + "\n")
    bad = admin.cli("users", "import", str(lines), check=False)
    assert bad.returncode != 0 and "Line 1: locale must be one of" in bad.stderr and "omar" not in admin.cli("users", "list").stdout
