"""Resources (APIs) and their access tokens: an operator registers an API with `gatehouse resources add` or the admin API;
clients name it with `resource` (RFC 8707) at authorization, PAR and the token endpoint, and the access token they get is
for that API only — its `aud`, only the scopes it accepts, its lifetime, its format: a JWT (RFC 9068) that joserfc, an
independent JOSE library, validates offline against the server's JWKS, or an opaque token that introspection explains.
Introspection answers for both formats, to the client and to the API's own introspection client; revocation shows in it.
Unknown, disallowed and unnamed resources are `invalid_target`, and a token for a resource opens nothing else."""
import json
import time
from urllib.parse import quote, urljoin

import pytest
import requests
from joserfc import jwt
from joserfc.errors import InvalidClaimError

from gatehouse_harness import (PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, DPoPHolder, authorize_url, conforms_to_admin_openapi, error_of,
                               forms, key_set, redeem, redirect_parameters)

NOTES = "https://notes.example.com/api"
LEDGER = "urn:example:ledger"
BOUND = "https://bound.example.com"
PRIVATE = "https://private.example.com"
TASKS = "https://tasks.example.com"
SEARCH = "https://search.example.com"
NOTES_API_SECRET = "notes-api-secret-0123456789-abcdefghijklmnop"
LEDGER_API_SECRET = "ledger-api-secret-0123456789-abcdefghijklmno"
WORKER_SECRET = "worker-client-secret-0123456789-abcdefghijkl"
RESOURCE_WEB = "resource-web"


@pytest.fixture(scope="module")
def apis(server):
    """The session's server with four resources, the clients the APIs introspect as, and a worker acting for itself."""
    server.add_client(RESOURCE_WEB, WEB_REDIRECT, secret=WEB_SECRET, extra=["--name", "Resource Web"])
    server.add_client("notes-api", "https://notes.example.com/cb", secret=NOTES_API_SECRET, extra=["--exchange-audience", SEARCH])
    server.add_client("switcher", WEB_REDIRECT, secret=WEB_SECRET, extra=["--exchange-audience", SEARCH, "--impersonation"])
    server.add_client("ledger-api", "https://ledger.example.com/cb", secret=LEDGER_API_SECRET)
    server.add_client("worker", "https://worker.example.com/cb", secret=WORKER_SECRET)
    server.add_client("notes-partner", WEB_REDIRECT, secret=WEB_SECRET, extra=["--name", "Notes Partner", "--third-party"])
    server.cli("resources", "add", NOTES, "--name", "Notes API", "--scope", "notes:read=Read your notes",
               "--scope", "notes:write=Change your notes", "--introspection-client", "notes-api")
    server.cli("resources", "add", LEDGER, "--name", "Ledger", "--format", "opaque", "--lifetime", "120", "--scope", "ledger:read=See your ledger",
               "--introspection-client", "ledger-api", "--client", RESOURCE_WEB, "--client", "worker")
    server.cli("resources", "add", BOUND, "--name", "Bound API", "--require-dpop", "--scope", "bound:use=Use the bound API")
    server.cli("resources", "add", PRIVATE, "--name", "Private API", "--client", "es-web")
    server.cli("resources", "add", TASKS, "--name", "Tasks")
    server.cli("resources", "add", SEARCH, "--name", "Search", "--scope", "notes:read=Search your notes", "--scope", "notes:write=Index your notes")
    return server


def url(server, resources, **overrides):
    """An authorization URL of the resource web client naming each of `resources`."""
    base = authorize_url(server, client_id=RESOURCE_WEB, **overrides)
    return base + "".join(f"&resource={quote(resource, safe='')}" for resource in resources)


def code_for(server, resources, scope="openid notes:read offline_access", browser=None, **overrides):
    response = (browser or Browser(server)).sign_in(url(server, resources, scope=scope, **overrides), "alice", PASSWORD)
    parameters = redirect_parameters(response)
    assert "code" in parameters, parameters
    return parameters["code"]


def token(server, code, **extra):
    return redeem(server, code, auth=(RESOURCE_WEB, WEB_SECRET), **extra)


def refreshed(server, refresh_token, **extra):
    return requests.post(server.issuer + "/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token, **extra},
                         auth=(RESOURCE_WEB, WEB_SECRET), timeout=10)


def introspect(server, value, auth):
    answer = requests.post(server.issuer + "/introspect", data={"token": value}, auth=auth, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def validated(server, access_token, audience):
    """The claims of a JWT access token, checked by joserfc as a resource server would: signature by a key of the
    JWKS, `typ`, issuer, audience, expiry."""
    decoded = jwt.decode(access_token, key_set(server), algorithms=["RS256"])
    assert decoded.header["typ"] == "at+jwt", decoded.header
    registry = jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": server.issuer}, aud={"essential": True, "value": audience}, sub={"essential": True},
        exp={"essential": True}, iat={"essential": True}, jti={"essential": True}, client_id={"essential": True})
    registry.validate(decoded.claims)
    return decoded.claims


def test_a_jwt_access_token_is_for_its_resource_only_and_validates_offline(apis):
    answer = token(apis, code_for(apis, [NOTES], scope="openid profile notes:read offline_access"), resource=NOTES)
    assert answer.status_code == 200, answer.text
    tokens = answer.json()
    assert tokens["scope"] == "notes:read" and tokens["token_type"] == "Bearer" and "id_token" in tokens
    assert tokens["access_token"].count(".") == 2

    claims = validated(apis, tokens["access_token"], NOTES)
    assert claims["aud"] == NOTES and claims["client_id"] == RESOURCE_WEB and claims["scope"] == "notes:read"
    assert claims["exp"] - claims["iat"] == tokens["expires_in"]
    assert claims["auth_time"] <= claims["iat"] and claims["acr"].startswith("urn:gatehouse:acr:") and "pwd" in claims["amr"]
    assert "cnf" not in claims
    alice = json.loads(apis.cli("users", "list", "--json").stdout)
    assert claims["sub"] == next(user["id"] for user in alice if user["username"] == "alice")
    # The same token presented to another API: joserfc refuses its audience.
    decoded = jwt.decode(tokens["access_token"], key_set(apis), algorithms=["RS256"])
    with pytest.raises(InvalidClaimError):
        jwt.JWTClaimsRegistry(aud={"essential": True, "value": LEDGER}).validate(decoded.claims)
    # And the server's own endpoints refuse it: it is for the notes API only.
    userinfo = requests.get(apis.issuer + "/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    assert userinfo.status_code == 401 and error_of(userinfo) == "invalid_token"
    account = requests.get(apis.issuer + "/account/v1", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    assert account.status_code == 401
    # The ID token that came with it is the client's, as ever.
    assert jwt.decode(tokens["id_token"], key_set(apis)).claims["aud"] == RESOURCE_WEB


def test_introspection_agrees_for_both_formats_and_sees_revocation(apis):
    browser = Browser(apis)
    code = code_for(apis, [NOTES, LEDGER], scope="openid notes:read ledger:read offline_access", browser=browser)
    notes = token(apis, code, resource=NOTES).json()
    ledger = refreshed(apis, notes["refresh_token"], resource=LEDGER).json()
    assert "." not in ledger["access_token"] and ledger["scope"] == "ledger:read" and ledger["expires_in"] == 120

    jwt_claims = validated(apis, notes["access_token"], NOTES)
    for auth in [(RESOURCE_WEB, WEB_SECRET), ("notes-api", NOTES_API_SECRET)]:
        seen = introspect(apis, notes["access_token"], auth)
        assert seen["active"] and seen["aud"] == NOTES and seen["scope"] == "notes:read" and seen["client_id"] == RESOURCE_WEB
        assert seen["sub"] == jwt_claims["sub"] and seen["exp"] == jwt_claims["exp"]
    # Another API's introspection client hears nothing about a token that is not for it.
    assert introspect(apis, notes["access_token"], ("ledger-api", LEDGER_API_SECRET)) == {"active": False}

    seen = introspect(apis, ledger["access_token"], ("ledger-api", LEDGER_API_SECRET))
    assert seen["active"] and seen["aud"] == LEDGER and seen["scope"] == "ledger:read" and seen["exp"] - seen["iat"] == 120
    assert introspect(apis, ledger["access_token"], ("notes-api", NOTES_API_SECRET)) == {"active": False}

    # Revoked by its client, the JWT is inactive at introspection at once (its signature stays valid until it expires).
    revoked = requests.post(apis.issuer + "/revoke", data={"token": notes["access_token"]}, auth=(RESOURCE_WEB, WEB_SECRET), timeout=10)
    assert revoked.status_code == 200
    assert introspect(apis, notes["access_token"], ("notes-api", NOTES_API_SECRET)) == {"active": False}
    assert introspect(apis, ledger["access_token"], ("ledger-api", LEDGER_API_SECRET))["active"]
    # The JWT's jti alone is not a token.
    assert introspect(apis, jwt_claims["jti"], (RESOURCE_WEB, WEB_SECRET)) == {"active": False}


def test_a_refresh_token_issues_a_token_for_each_named_resource_in_turn(apis):
    tokens = token(apis, code_for(apis, [NOTES, LEDGER], scope="openid profile notes:read notes:write ledger:read offline_access"),
                   resource=LEDGER).json()
    assert tokens["scope"] == "ledger:read"
    for_notes = refreshed(apis, tokens["refresh_token"], resource=NOTES)
    assert for_notes.status_code == 200, for_notes.text
    assert set(validated(apis, for_notes.json()["access_token"], NOTES)["scope"].split()) == {"notes:read", "notes:write"}
    # Narrowed: only what is asked for, of what the resource accepts.
    narrowed = refreshed(apis, for_notes.json()["refresh_token"], resource=NOTES, scope="openid notes:read")
    assert narrowed.status_code == 200 and narrowed.json()["scope"] == "notes:read", narrowed.text
    # Not named at authorization: refused, and the refresh token still works.
    unnamed = refreshed(apis, narrowed.json()["refresh_token"], resource=TASKS)
    assert unnamed.status_code == 400 and error_of(unnamed) == "invalid_target", unnamed.text
    # Without a resource: a token for the server itself, with the server's scopes only; userinfo takes it.
    own = refreshed(apis, narrowed.json()["refresh_token"])
    assert own.status_code == 200, own.text
    assert own.json()["scope"] == "openid" and "." not in own.json()["access_token"]
    userinfo = requests.get(apis.issuer + "/userinfo", headers={"Authorization": f"Bearer {own.json()['access_token']}"}, timeout=10)
    assert userinfo.status_code == 200 and userinfo.json()["sub"]


def test_unknown_disallowed_and_unnamed_resources_are_invalid_target(apis):
    browser = Browser(apis)
    for resources in [["https://unknown.example.com"], [PRIVATE], ["not a resource"], ["https://notes.example.com/api#part"]]:
        page = browser.get(url(apis, resources))
        assert page.status_code in (302, 303), page.text
        assert redirect_parameters(page)["error"] == "invalid_target", (resources, redirect_parameters(page))
    # A scope no named resource accepts is an unknown scope.
    page = browser.get(url(apis, [NOTES], scope="openid ledger:read"))
    assert redirect_parameters(page)["error"] == "invalid_scope"
    # A resource alone, without a scope, is a request of its own.
    code = code_for(apis, [NOTES], scope=None, browser=browser)

    # At the token endpoint: two resources in one request, or one the authorization did not name, leave the code unspent.
    two = requests.post(apis.issuer + "/token", data=[("grant_type", "authorization_code"), ("code", code), ("redirect_uri", WEB_REDIRECT),
                                                      ("resource", NOTES), ("resource", LEDGER)],
                        auth=(RESOURCE_WEB, WEB_SECRET), timeout=10)
    assert two.status_code == 400 and error_of(two) == "invalid_target", two.text
    unnamed = token(apis, code, resource=LEDGER)
    assert unnamed.status_code == 400 and error_of(unnamed) == "invalid_target", unnamed.text
    unknown = token(apis, code, resource="https://unknown.example.com")
    assert unknown.status_code == 400 and error_of(unknown) == "invalid_target"
    spent = token(apis, code, resource=NOTES)
    assert spent.status_code == 200 and "scope" not in spent.json(), spent.text
    assert validated(apis, spent.json()["access_token"], NOTES).get("scope") is None

    # Client credentials: only a client the resource lists may ask for itself, for scopes the resource accepts.
    def own(client, secret, **data):
        return requests.post(apis.issuer + "/token", data={"grant_type": "client_credentials", **data}, auth=(client, secret), timeout=10)
    listed = own("worker", WORKER_SECRET, resource=LEDGER, scope="ledger:read")
    assert listed.status_code == 200 and listed.json()["scope"] == "ledger:read", listed.text
    seen = introspect(apis, listed.json()["access_token"], ("ledger-api", LEDGER_API_SECRET))
    assert seen["active"] and seen["sub"] == "worker" and seen["aud"] == LEDGER
    assert error_of(own("worker", WORKER_SECRET, resource=NOTES)) == "invalid_target"  # open to any client, but not for itself
    assert error_of(own("worker", WORKER_SECRET, resource=LEDGER, scope="notes:read")) == "invalid_scope"
    assert error_of(own("worker", WORKER_SECRET, resource="https://unknown.example.com")) == "invalid_target"


def test_a_resource_that_requires_dpop_gets_bound_tokens_only(apis):
    code = code_for(apis, [BOUND], scope="openid bound:use")
    bare = token(apis, code, resource=BOUND)
    assert bare.status_code == 400 and error_of(bare) == "invalid_dpop_proof", bare.text
    holder = DPoPHolder()  # the code stays unspent for the request with a proof
    answer = requests.post(apis.issuer + "/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": WEB_REDIRECT,
                                                         "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "resource": BOUND},
                           auth=(RESOURCE_WEB, WEB_SECRET), headers={"DPoP": holder.proof("POST", apis.issuer + "/token")}, timeout=10)
    assert answer.status_code == 200, answer.text
    assert answer.json()["token_type"] == "DPoP"
    assert validated(apis, answer.json()["access_token"], BOUND)["cnf"] == {"jkt": holder.thumbprint}


def test_pushed_authorization_names_resources_too(apis):
    pushed = requests.post(apis.issuer + "/par", data={
        "response_type": "code", "client_id": RESOURCE_WEB, "redirect_uri": WEB_REDIRECT, "scope": "openid notes:read", "state": "p",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256", "resource": NOTES},
        auth=(RESOURCE_WEB, WEB_SECRET), timeout=10)
    assert pushed.status_code == 201, pushed.text
    response = Browser(apis).sign_in(f"{apis.issuer}/authorize?client_id={RESOURCE_WEB}&request_uri={quote(pushed.json()['request_uri'])}",
                                     "alice", PASSWORD)
    answer = token(apis, redirect_parameters(response)["code"], resource=NOTES)
    assert answer.status_code == 200 and validated(apis, answer.json()["access_token"], NOTES)["scope"] == "notes:read"
    refused = requests.post(apis.issuer + "/par", data={
        "response_type": "code", "client_id": RESOURCE_WEB, "redirect_uri": WEB_REDIRECT, "scope": "openid", "resource": PRIVATE,
        "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"},
        auth=(RESOURCE_WEB, WEB_SECRET), timeout=10)
    assert refused.status_code == 400 and error_of(refused) == "invalid_target"


def test_consent_names_the_resource_and_its_scopes_in_their_own_words(apis):
    username = f"resource-consent-{time.monotonic_ns()}"
    apis.add_user(username, PASSWORD)
    browser = Browser(apis)
    page = browser.sign_in(authorize_url(apis, client_id="notes-partner", scope="openid notes:write") + f"&resource={quote(NOTES, safe='')}",
                           username, PASSWORD)
    assert page.status_code == 200 and "Allow Notes Partner access?" in page.text, page.text
    assert "Notes API: Change your notes" in page.text and "Use Notes API as you" in page.text and "Know who you are" in page.text
    form = forms(page.text)[0]
    allowed = browser.post(urljoin(page.url, form["action"]), {**form["inputs"], "action": "submit"})
    code = redirect_parameters(allowed)["code"]
    answer = redeem(apis, code, auth=("notes-partner", WEB_SECRET), resource=NOTES)
    assert answer.status_code == 200 and answer.json()["scope"] == "notes:write", answer.text
    # Allowed once: the same request no longer asks; a resource alone, without a scope, is asked about too.
    again = browser.get(authorize_url(apis, client_id="notes-partner", scope="openid notes:write") + f"&resource={quote(NOTES, safe='')}")
    assert again.status_code in (302, 303) and "code" in redirect_parameters(again)
    other = browser.get(authorize_url(apis, client_id="notes-partner", scope="openid") + f"&resource={quote(BOUND, safe='')}")
    assert other.status_code == 200 and "Use Bound API as you" in other.text and "Know who you are" not in other.text


def test_operators_manage_resources_through_the_admin_api_and_the_command_line(apis):
    operator = "resource-operator"
    apis.add_client(operator, "https://ops.example/cb", secret=WORKER_SECRET, extra=["--scope", "gatehouse:admin"])
    bearer = requests.post(apis.issuer + "/token", data={"grant_type": "client_credentials", "scope": "gatehouse:admin"},
                           auth=(operator, WORKER_SECRET), timeout=10).json()["access_token"]
    headers = {"Authorization": f"Bearer {bearer}"}

    def call(method, path, **kwargs):
        extra = kwargs.pop("headers", {})
        return conforms_to_admin_openapi(apis, requests.request(method, apis.issuer + "/admin/v1" + path, headers={**headers, **extra},
                                                                timeout=10, **kwargs))

    identifier = "https://calendar.example.com/v2"
    path = "/resources/" + quote(identifier, safe="")
    created = call("POST", "/resources", json={"id": identifier, "name": "Calendar", "scopes": [{"name": "calendar:read", "description": "See your calendar"}],
                                               "token_format": "opaque", "access_token_lifetime": 300})
    assert created.status_code == 201, created.text
    assert created.headers["Location"] == "/admin/v1" + path and created.json()["token_format"] == "opaque"
    assert call("POST", "/resources", json={"id": identifier, "name": "Again"}).status_code == 409
    for bad in [{"id": "http://calendar.example.com", "name": "Plain"}, {"id": "urn:x:y", "name": "S", "scopes": [{"name": "openid", "description": "x"}]},
                {"id": "urn:x:z", "name": "L", "access_token_lifetime": 999999}, {"id": "urn:x:w", "name": "U", "colour": "red"},
                {"id": "urn:x:v", "name": "D", "scopes": [{"name": "a b", "description": "x"}]}]:
        refused = call("POST", "/resources", json=bad)
        assert refused.status_code == 400 and refused.headers["Content-Type"] == "application/problem+json", (bad, refused.text)

    shown = call("GET", path)
    assert shown.status_code == 200 and shown.json()["name"] == "Calendar"
    assert call("PATCH", path, json={"name": "Calendar v2"}).status_code == 428
    assert shown.json()["token_alg"] == "RS256", "RS256 unless chosen otherwise (RFC 9068 §4)"
    changed = call("PATCH", path, json={"name": "Calendar v2", "token_format": "jwt", "token_alg": "ES256"}, headers={"If-Match": shown.headers["ETag"]})
    assert changed.status_code == 200 and changed.json()["token_format"] == "jwt" and changed.json()["access_token_lifetime"] == 300, changed.text
    assert changed.json()["token_alg"] == "ES256"
    assert call("PATCH", path, json={"token_alg": "HS256"}, headers={"If-Match": "*"}).status_code == 400
    stale = call("PATCH", path, json={"name": "Stale"}, headers={"If-Match": shown.headers["ETag"]})
    assert stale.status_code == 412
    assert identifier in [item["id"] for item in call("GET", "/resources").json()["items"]]
    assert identifier in apis.cli("resources", "list").stdout

    # A token for it, then the resource removed: the token stops working with it.
    apis.cli("resources", "update", identifier, "--client", "worker")
    issued = requests.post(apis.issuer + "/token", data={"grant_type": "client_credentials", "resource": identifier, "scope": "calendar:read"},
                           auth=("worker", WORKER_SECRET), timeout=10)
    assert issued.status_code == 200 and issued.json()["expires_in"] == 300, issued.text
    assert introspect(apis, issued.json()["access_token"], ("worker", WORKER_SECRET))["active"]
    assert call("DELETE", path).status_code == 204
    assert call("GET", path).status_code == 404
    assert introspect(apis, issued.json()["access_token"], ("worker", WORKER_SECRET)) == {"active": False}

    events = json.loads(apis.cli("events", "--json", "--limit", "500").stdout)
    kinds = [event["type"] for event in events if event.get("details", {}).get("resource") == identifier]
    assert {"resource.created", "resource.updated", "resource.deleted"} <= set(kinds), kinds
    missing = apis.cli("resources", "show", "https://nowhere.example.com", check=False)
    assert missing.returncode != 0 and "There is no resource" in missing.stderr


EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"


def exchanged(server, subject, auth, subject_type=ACCESS_TOKEN, **extra):
    return requests.post(server.issuer + "/token", data={"grant_type": EXCHANGE, "subject_token": subject, "subject_token_type": subject_type,
                                                         **extra}, auth=auth, timeout=10)


def test_an_api_exchanges_a_persons_token_to_call_another_on_their_behalf(apis):
    tokens = token(apis, code_for(apis, [NOTES], scope="openid notes:read offline_access"), resource=NOTES).json()
    subject = validated(apis, tokens["access_token"], NOTES)
    # The notes API, holding the person's token for itself, calls the search service for them: delegation.
    answer = exchanged(apis, tokens["access_token"], ("notes-api", NOTES_API_SECRET), resource=SEARCH)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["issued_token_type"] == ACCESS_TOKEN and body["token_type"] == "Bearer" and body["scope"] == "notes:read"
    claims = validated(apis, body["access_token"], SEARCH)
    assert claims["sub"] == subject["sub"] and claims["client_id"] == "notes-api" and claims["act"] == {"sub": "notes-api"}
    assert claims["exp"] <= subject["exp"] and claims["auth_time"] == subject["auth_time"]
    seen = introspect(apis, body["access_token"], ("notes-api", NOTES_API_SECRET))
    assert seen["active"] and seen["act"] == {"sub": "notes-api"} and seen["aud"] == SEARCH
    events = json.loads(apis.cli("events", "--type", "token.exchanged", "--json").stdout)
    assert any(event["client_id"] == "notes-api" and event["details"]["mode"] == "delegation" and event["details"]["resource"] == SEARCH
               for event in events)

    # Scopes never grow, targets stay within the policy, subject tokens stay with whom they were for.
    grown = exchanged(apis, tokens["access_token"], ("notes-api", NOTES_API_SECRET), resource=SEARCH, scope="notes:read notes:write")
    assert grown.status_code == 400 and error_of(grown) == "invalid_scope", grown.text
    disallowed = exchanged(apis, tokens["access_token"], ("notes-api", NOTES_API_SECRET), resource=LEDGER)
    assert disallowed.status_code == 400 and error_of(disallowed) == "invalid_target"
    unauthorized = exchanged(apis, tokens["access_token"], (RESOURCE_WEB, WEB_SECRET), resource=SEARCH)
    assert unauthorized.status_code == 400 and error_of(unauthorized) == "unauthorized_client", unauthorized.text
    not_its_own = exchanged(apis, tokens["access_token"], ("switcher", WEB_SECRET), resource=SEARCH)
    assert not_its_own.status_code == 400 and error_of(not_its_own) == "invalid_grant", not_its_own.text
    assert error_of(exchanged(apis, "not-a-token", ("notes-api", NOTES_API_SECRET), resource=SEARCH)) == "invalid_grant"

    # Attack script: each exchange by delegation nests one `act` more; a chain stops at five clients.
    chained = body["access_token"]
    for depth in range(2, 6):
        again = exchanged(apis, chained, ("notes-api", NOTES_API_SECRET), resource=SEARCH)
        assert again.status_code == 200, (depth, again.text)
        chained = again.json()["access_token"]
        act, nested = validated(apis, chained, SEARCH)["act"], 1
        while "act" in act:
            act, nested = act["act"], nested + 1
        assert nested == depth
    too_deep = exchanged(apis, chained, ("notes-api", NOTES_API_SECRET), resource=SEARCH)
    assert too_deep.status_code == 400 and error_of(too_deep) == "invalid_grant" and "5 times" in too_deep.json()["error_description"]

    # Attack script: a DPoP-bound subject token never comes back as a bearer token; with a proof, the new one is bound.
    holder = DPoPHolder()
    bound_code = code_for(apis, [NOTES], scope="openid notes:read")
    bound = requests.post(apis.issuer + "/token", data={"grant_type": "authorization_code", "code": bound_code, "redirect_uri": WEB_REDIRECT,
                                                        "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", "resource": NOTES},
                          auth=(RESOURCE_WEB, WEB_SECRET), headers={"DPoP": holder.proof("POST", apis.issuer + "/token")}, timeout=10)
    assert bound.status_code == 200 and bound.json()["token_type"] == "DPoP", bound.text
    unbound = exchanged(apis, bound.json()["access_token"], ("notes-api", NOTES_API_SECRET), resource=SEARCH)
    assert unbound.status_code == 400 and error_of(unbound) == "invalid_dpop_proof", unbound.text
    api_key = DPoPHolder()
    rebound = requests.post(apis.issuer + "/token", data={"grant_type": EXCHANGE, "subject_token": bound.json()["access_token"],
                                                          "subject_token_type": ACCESS_TOKEN, "resource": SEARCH},
                            auth=("notes-api", NOTES_API_SECRET), headers={"DPoP": api_key.proof("POST", apis.issuer + "/token")}, timeout=10)
    assert rebound.status_code == 200 and rebound.json()["token_type"] == "DPoP", rebound.text
    assert validated(apis, rebound.json()["access_token"], SEARCH)["cnf"] == {"jkt": api_key.thumbprint}

    # The exchanged token belongs to the person's sign-in: ending it (revoking its refresh token) ends this one too.
    requests.post(apis.issuer + "/revoke", data={"token": tokens["refresh_token"]}, auth=(RESOURCE_WEB, WEB_SECRET), timeout=10)
    assert introspect(apis, body["access_token"], ("notes-api", NOTES_API_SECRET)) == {"active": False}


def test_impersonation_only_where_allowed_and_from_an_id_token_too(apis):
    browser = Browser(apis)
    response = browser.sign_in(authorize_url(apis, client_id="switcher", scope="openid notes:read") + f"&resource={quote(NOTES, safe='')}",
                               "alice", PASSWORD)
    own = redeem(apis, redirect_parameters(response)["code"], auth=("switcher", WEB_SECRET), resource=NOTES).json()
    answer = exchanged(apis, own["access_token"], ("switcher", WEB_SECRET), audience=SEARCH)
    assert answer.status_code == 200, answer.text
    claims = validated(apis, answer.json()["access_token"], SEARCH)
    assert "act" not in claims and claims["scope"] == "notes:read" and claims["client_id"] == "switcher"
    events = json.loads(apis.cli("events", "--type", "token.exchanged", "--json").stdout)
    assert any(event["client_id"] == "switcher" and event["details"]["mode"] == "impersonation" for event in events)

    # Its ID token: a token for the person with no scope (an ID token carries none, and the policy lists none).
    from_id = exchanged(apis, own["id_token"], ("switcher", WEB_SECRET), subject_type="urn:ietf:params:oauth:token-type:id_token", resource=SEARCH)
    assert from_id.status_code == 200, from_id.text
    claims = validated(apis, from_id.json()["access_token"], SEARCH)
    assert claims["sub"] == validated_id_subject(apis, own["id_token"]) and "scope" not in claims
    # Attack script: an ID token is exchanged once, and what it gave dies with its sign-in's grant.
    again = exchanged(apis, own["id_token"], ("switcher", WEB_SECRET), subject_type="urn:ietf:params:oauth:token-type:id_token", resource=SEARCH)
    assert again.status_code == 400 and error_of(again) == "invalid_grant" and "exchanged already" in again.json()["error_description"]
    assert introspect(apis, from_id.json()["access_token"], ("switcher", WEB_SECRET))["active"]
    grants = [grant for grant in json.loads(apis.cli("users", "sessions", "alice", "--json").stdout)["grants"] if grant["client_id"] == "switcher"]
    for grant in grants:
        apis.cli("users", "sessions", "alice", "--revoke", grant["id"])
    assert introspect(apis, from_id.json()["access_token"], ("switcher", WEB_SECRET)) == {"active": False}
    # A fresh ID token of a sign-in whose grants were all revoked is refused too.
    later = exchanged(apis, own["id_token"], ("switcher", WEB_SECRET), subject_type="urn:ietf:params:oauth:token-type:id_token", resource=SEARCH)
    assert later.status_code == 400 and error_of(later) == "invalid_grant"
    # Another client's ID token is refused, as is a token for one resource sent to two.
    assert error_of(exchanged(apis, own["id_token"], ("notes-api", NOTES_API_SECRET), subject_type="urn:ietf:params:oauth:token-type:id_token",
                              resource=SEARCH)) == "invalid_grant"
    two = requests.post(apis.issuer + "/token", data=[("grant_type", EXCHANGE), ("subject_token", own["access_token"]),
                                                      ("subject_token_type", ACCESS_TOKEN), ("resource", SEARCH), ("audience", NOTES)],
                        auth=("switcher", WEB_SECRET), timeout=10)
    assert two.status_code == 400 and error_of(two) == "invalid_target"


def validated_id_subject(server, id_token):
    return jwt.decode(id_token, key_set(server)).claims["sub"]
